// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { type Actor, createActor, waitFor } from 'xstate';
import { createControllableFetchReply } from '../testing/controllable-reply';
import { type ChatMessage, chatMachine, ERROR_MESSAGE, NO_CONTENT_MESSAGE } from './chat-machine';

type ChatActor = Actor<typeof chatMachine>;

function startChat() {
  const fake = createControllableFetchReply();
  const actor: ChatActor = createActor(chatMachine.provide({ actors: { fetchReply: fake.logic } }));
  actor.start();
  return { actor, fake };
}

function submit(actor: ChatActor, text: string) {
  actor.send({ type: 'draft.change', text });
  actor.send({ type: 'message.submit' });
}

const backToIdle = (actor: ChatActor) => waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 1000 });

// The visitor-facing strings are the spec's; spelled out here so that changing them is a visible decision.
const NO_CONTENT = 'No response received';
const ERROR = 'Error: Unable to get response';

describe('chat machine', () => {
  it('starts idle with an empty conversation and an empty draft', () => {
    const { actor } = startChat();
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('idle');
    expect(snapshot.context).toEqual({ messages: [], draft: '' });
  });

  it("exports the spec's texts", () => {
    expect(NO_CONTENT_MESSAGE).toBe(NO_CONTENT);
    expect(ERROR_MESSAGE).toBe(ERROR);
  });

  it('keeps the latest draft while idle', () => {
    const { actor } = startChat();
    actor.send({ type: 'draft.change', text: 'Hel' });
    actor.send({ type: 'draft.change', text: 'Hello' });
    expect(actor.getSnapshot().context.draft).toBe('Hello');
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.messages).toEqual([]);
  });

  describe('ignores a submit with nothing but whitespace', () => {
    it.each([
      ['an empty draft', ''],
      ['spaces', '   '],
      ['tabs and newlines', '\t\n \r\n'],
      ['no-break and other Unicode spaces', '\u00a0\u2003\u3000\ufeff'],
    ])('%s', (_, text) => {
      const { actor, fake } = startChat();
      actor.send({ type: 'draft.change', text });
      expect(actor.getSnapshot().can({ type: 'message.submit' })).toBe(false);

      actor.send({ type: 'message.submit' });

      const snapshot = actor.getSnapshot();
      expect(snapshot.value).toBe('idle');
      expect(snapshot.context.messages).toEqual([]);
      expect(snapshot.context.draft).toBe(text);
      expect(fake.calls).toHaveLength(0);
    });
  });

  describe('sends a non-empty message exactly as typed', () => {
    it.each([
      ['plain text', 'Hello'],
      ['leading and trailing spaces', '  padded message \n'],
      ['markup', '<b>bold</b><script>alert("x")</script> & &amp;'],
      ['emoji and accents', '👋🏽 Grüße, naïve café 🤖'],
      ['a single character', 'x'],
    ])('%s', (_, text) => {
      const { actor, fake } = startChat();
      actor.send({ type: 'draft.change', text });
      expect(actor.getSnapshot().can({ type: 'message.submit' })).toBe(true);

      actor.send({ type: 'message.submit' });

      const snapshot = actor.getSnapshot();
      expect(snapshot.value).toBe('sending');
      expect(snapshot.context.messages).toEqual([{ text, sender: 'user' }]);
      expect(snapshot.context.draft).toBe('');
      expect(fake.calls).toHaveLength(1);
      expect(fake.latest().input).toEqual({ text });
    });

    it('keeps all 50 000 characters, untrimmed', () => {
      const { actor, fake } = startChat();
      const text = ` ${'word '.repeat(9_999)}end `;
      expect(text).toHaveLength(50_000);

      submit(actor, text);

      expect(actor.getSnapshot().context.messages).toEqual([{ text, sender: 'user' }]);
      expect(fake.latest().input).toEqual({ text });
    });
  });

  it('sends only the latest message, never the earlier conversation', async () => {
    const { actor, fake } = startChat();
    submit(actor, 'first question');
    fake.latest().resolve('first answer');
    await backToIdle(actor);

    submit(actor, 'second question');

    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[1].input).toEqual({ text: 'second question' });
    expect(actor.getSnapshot().context.messages).toEqual<ChatMessage[]>([
      { text: 'first question', sender: 'user' },
      { text: 'first answer', sender: 'bot' },
      { text: 'second question', sender: 'user' },
    ]);
  });

  it('ignores a second submit and any typing while sending', () => {
    const { actor, fake } = startChat();
    submit(actor, 'only once');

    actor.send({ type: 'message.submit' });
    actor.send({ type: 'draft.change', text: 'typed while waiting' });
    actor.send({ type: 'message.submit' });

    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('sending');
    expect(snapshot.can({ type: 'message.submit' })).toBe(false);
    expect(snapshot.can({ type: 'draft.change', text: 'x' })).toBe(false);
    expect(snapshot.context.draft).toBe('');
    expect(snapshot.context.messages).toEqual([{ text: 'only once', sender: 'user' }]);
    expect(fake.calls).toHaveLength(1);
  });

  it("appends the reply's content as a bot message and returns to idle", async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    fake.latest().resolve('  Hello! <i>How</i> can I help? 🤖 ');

    await backToIdle(actor);

    expect(actor.getSnapshot().context).toEqual({
      draft: '',
      messages: [
        { text: 'Hi', sender: 'user' },
        { text: '  Hello! <i>How</i> can I help? 🤖 ', sender: 'bot' },
      ],
    });
  });

  it.each([
    ['null', null],
    ['an empty string', ''],
    ['only white space', ' \n\t '],
  ])('answers a reply of %s with "No response received"', async (_, output) => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    fake.latest().resolve(output);

    await backToIdle(actor);

    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi', sender: 'user' },
      { text: NO_CONTENT, sender: 'bot' },
    ]);
  });

  it('logs a failure and answers it with the error message, then accepts a new message', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { actor, fake } = startChat();
    const failure = new Error('provider unreachable');
    submit(actor, 'Hi');
    expect(consoleError).not.toHaveBeenCalled();

    fake.latest().reject(failure);
    await backToIdle(actor);

    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(consoleError.mock.calls[0]).toContain(failure);
    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi', sender: 'user' },
      { text: ERROR, sender: 'bot' },
    ]);

    submit(actor, 'Again');
    expect(actor.getSnapshot().value).toBe('sending');
    expect(fake.calls).toHaveLength(2);
  });

  it('aborts the pending request when the chat stops while sending', () => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    const { signal } = fake.latest();
    expect(signal.aborted).toBe(false);

    actor.stop();

    expect(signal.aborted).toBe(true);
  });

  it('does not abort a request that has been answered', async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    const call = fake.latest();
    call.resolve('Hello');
    await backToIdle(actor);

    actor.stop();

    expect(call.signal.aborted).toBe(false);
  });

  it('fails into the error message, not a hang, when no fetchReply is provided', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const actor = createActor(chatMachine).start();
    submit(actor, 'Hi');

    await backToIdle(actor);

    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi', sender: 'user' },
      { text: ERROR, sender: 'bot' },
    ]);
    expect(consoleError).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ message: expect.stringContaining('not provided') }),
    );
  });
});
