import { describe, expect, it, vi } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { CATALOGUES } from '../locales/catalogues';
import { createControllableFetchReply } from '../testing/controllable-reply';
import { type ChatInput, chatMachine } from './chat-machine';

// The site's settings in the machine: the welcome and starters (assistant.config.yaml), and which earlier exchanges
// go with a message when the site allows history.

function startChat(input: ChatInput) {
  const fake = createControllableFetchReply();
  const actor = createActor(chatMachine.provide({ actors: { fetchReply: fake.logic } }), { input }).start();
  return { actor, fake };
}

type Chat = ReturnType<typeof startChat>;

function send({ actor }: Chat, text: string) {
  actor.send({ type: 'draft.change', text });
  actor.send({ type: 'message.submit' });
}

const idle = ({ actor }: Chat) => waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 4_000 });

describe('welcome and starters', () => {
  it('holds the welcome apart from the conversation, and offers the starters until the first message', () => {
    const chat = startChat({ welcome: 'Hello!', starters: ['What do you sell?', 'Where are you?'] });
    const { actor, fake } = chat;

    expect(actor.getSnapshot().value).toEqual({ idle: 'fresh' });
    expect(actor.getSnapshot().context).toMatchObject({ welcome: 'Hello!', messages: [] });

    actor.send({ type: 'draft.change', text: 'typed, not sent' });
    expect(actor.getSnapshot().value).toEqual({ idle: 'fresh' });

    actor.send({ type: 'message.submit', text: 'Where are you?' });
    expect(actor.getSnapshot().value).toEqual({ sending: { waiting: 'quiet' } });
    expect(actor.getSnapshot().context.messages).toEqual([{ text: 'Where are you?', sender: 'user' }]);
    // The starter is sent; what the visitor had typed stays in the box for later.
    expect(actor.getSnapshot().context.draft).toBe('typed, not sent');
    expect(fake.latest().input.text).toBe('Where are you?');
    expect(fake.latest().input).not.toHaveProperty('history');
  });

  it('takes the starters away after a typed first message too, whatever its answer', async () => {
    const chat = startChat({ starters: ['What do you sell?'] });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    send(chat, 'Hi');
    chat.fake.latest().reject(new Error('down'));
    await idle(chat);

    expect(chat.actor.getSnapshot().value).toEqual({ idle: 'retryable' });
  });

  it('is `ready` at once without starters, as the spec', () => {
    expect(startChat({ welcome: 'Hello!' }).actor.getSnapshot().value).toEqual({ idle: 'ready' });
  });
});

describe('history', () => {
  async function answer(chat: Chat, question: string, reply: string) {
    send(chat, question);
    chat.fake.latest().resolve(reply);
    await idle(chat);
  }

  it('gives the reply actor the last `history` answered exchanges, oldest first', async () => {
    const chat = startChat({ history: 2, welcome: 'Welcome!' });
    await answer(chat, 'one?', 'One.');
    expect(chat.fake.calls[0].input.history).toEqual([]);

    await answer(chat, 'two?', 'Two.');
    await answer(chat, 'three?', 'Three.');
    send(chat, 'four?');

    expect(chat.fake.latest().input.history).toEqual([
      { question: 'two?', answer: 'Two.' },
      { question: 'three?', answer: 'Three.' },
    ]);
  });

  // The machine's own texts are the visitor's language: a failed or empty reply is known by its status, in any.
  it.each([
    ['English', undefined],
    ['German', { noContent: CATALOGUES.de.noContent, error: CATALOGUES.de.error }],
  ])(
    'leaves out a failed, empty or stopped reply (%s), and a failed attempt asked for again counts once answered',
    async (_, statusTexts) => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const chat = startChat({ history: 10, statusTexts });
      await answer(chat, 'kept?', 'Kept.');

      send(chat, 'failed?');
      chat.fake.latest().delta('Half a rep');
      chat.fake.latest().reject(new Error('broke off'));
      await idle(chat);

      await answer(chat, 'empty?', '  ');

      send(chat, 'stopped?');
      chat.fake.latest().delta('Stopped ha');
      chat.actor.send({ type: 'reply.stop' });

      send(chat, 'retried?');
      chat.fake.latest().reject(new Error('down'));
      await idle(chat);
      chat.actor.send({ type: 'reply.retry' });
      chat.fake.latest().resolve('Retried.');
      await idle(chat);

      send(chat, 'latest?');
      expect(chat.fake.latest().input).toMatchObject({
        text: 'latest?',
        history: [
          { question: 'kept?', answer: 'Kept.' },
          { question: 'retried?', answer: 'Retried.' },
        ],
      });
    },
  );
});
