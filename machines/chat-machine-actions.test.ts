// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import type { ReplyActions } from '../contract/actions';
import { type ChatActor, startChat, submit } from '../testing/chat-actor';
import type { ChatInput, ConfirmRefusal } from './chat-machine';

// The site's actions in the chat (issue 49): a reply that proposes a write leaves the chat `confirming`, where only the
// visitor's Confirm sends the token back; Cancel and a new message do nothing with it but say so.

const WAIT_MS = 4_000;
/** The server's refusal of a Confirm, as the request rejects with it. */
const refusal = (confirmRefused: ConfirmRefusal['confirmRefused']) =>
  Object.assign(new Error(`refused: ${confirmRefused}`), { confirmRefused });
// The app gives the machine these from the visitor's catalogue (English here).
const EXPIRED = 'This confirmation has expired. Use Retry to ask again.';
const FAILED = 'The action could not be done.';
const TEXTS: ChatInput = {
  statusTexts: { noContent: 'No response received', error: 'Error', actionExpired: EXPIRED, actionFailed: FAILED },
};
const settled = (actor: ChatActor, state: 'idle' | 'confirming') =>
  waitFor(actor, (snapshot) => snapshot.matches(state), { timeout: WAIT_MS });

const NOTE = { action: 'order_status', text: 'Order 123456: shipped', inputs: { order_number: '123456' } };
const CONFIRMATION = {
  action: 'request_callback',
  text: 'Ask the shop to call +44 1234 567890 in the morning?',
  token: 'confirmation-token-not-real',
  conversation: 'conversation-id-1',
  expires: Date.now() + 300_000,
};

/** A reply with `actions` from the server, settled; the chat then waits for the visitor or is idle again. */
async function proposed(actions: ReplyActions = { notes: [], confirmation: CONFIRMATION }) {
  const chat = startChat({}, TEXTS);
  submit(chat.actor, 'Can you call me back tomorrow morning?');
  chat.fake.latest().actions(actions);
  chat.fake.latest().resolve('I can ask the shop to call you: please confirm.');
  await settled(chat.actor, actions.confirmation ? 'confirming' : 'idle');
  return chat;
}

describe("the site's actions in the chat machine", () => {
  it('keeps the notes of the actions called on the reply, and stays idle when nothing is proposed', async () => {
    const { actor } = await proposed({ notes: [NOTE] });
    expect(actor.getSnapshot().matches({ idle: 'ready' })).toBe(true);
    expect(actor.getSnapshot().context.messages.at(-1)).toMatchObject({ status: 'answer', actions: [NOTE] });
    expect(actor.getSnapshot().context.actions).toBeUndefined();
  });

  it('sends each request with the conversation’s id, the same until New conversation', async () => {
    const { actor, fake } = await proposed({ notes: [NOTE] });
    const first = fake.latest().input.conversation;
    submit(actor, 'And my other order?');
    expect(fake.latest().input.conversation).toBe(first);
    expect(fake.latest().input.confirm).toBeUndefined();
    fake.latest().resolve('Shipped too.');
    await settled(actor, 'idle');
    actor.send({ type: 'conversation.clear' });
    submit(actor, 'Hello');
    expect(fake.latest().input.conversation).toMatch(/^[0-9a-f]{32}$/);
    expect(fake.latest().input.conversation).not.toBe(first);
  });

  it('waits for the visitor after a proposed write: Confirm sends its token and the reply tells the result', async () => {
    const { actor, fake } = await proposed();
    expect(actor.getSnapshot().context.messages.at(-1)?.confirmation).toEqual(CONFIRMATION);
    // Nothing but the visitor moves it on: no submit of an empty box, no retry.
    actor.send({ type: 'message.submit' });
    actor.send({ type: 'reply.retry' });
    expect(actor.getSnapshot().matches('confirming')).toBe(true);
    expect(fake.calls).toHaveLength(1);

    actor.send({ type: 'action.confirm' });
    expect(actor.getSnapshot().matches('sending')).toBe(true);
    expect(fake.latest().input).toMatchObject({
      text: 'Can you call me back tomorrow morning?',
      confirm: CONFIRMATION.token,
    });
    expect(actor.getSnapshot().context.messages.at(-1)?.confirmation?.outcome).toBe('confirmed');
    fake.latest().actions({ notes: [{ action: 'request_callback', text: 'request_callback', inputs: {} }] });
    fake.latest().resolve('Done: the shop will call you tomorrow morning.');
    await settled(actor, 'idle');
    expect(actor.getSnapshot().context.messages.at(-1)).toMatchObject({
      text: 'Done: the shop will call you tomorrow morning.',
      actions: [{ action: 'request_callback' }],
    });
    // A second Confirm is no event the chat takes any more.
    actor.send({ type: 'action.confirm' });
    expect(fake.calls).toHaveLength(2);
  });

  it('does nothing on Cancel but say so', async () => {
    const { actor, fake } = await proposed();
    actor.send({ type: 'action.cancel' });
    expect(actor.getSnapshot().matches({ idle: 'ready' })).toBe(true);
    expect(actor.getSnapshot().context.messages.at(-1)?.confirmation?.outcome).toBe('cancelled');
    expect(fake.calls).toHaveLength(1);
  });

  it('cancels the proposed write when the visitor sends a new message instead', async () => {
    const { actor, fake } = await proposed();
    actor.send({ type: 'draft.change', text: 'Actually, what are your opening hours?' });
    expect(actor.getSnapshot().context.draft).toBe('Actually, what are your opening hours?');
    actor.send({ type: 'message.submit' });
    expect(actor.getSnapshot().matches('sending')).toBe(true);
    expect(fake.latest().input).toMatchObject({ text: 'Actually, what are your opening hours?' });
    expect(fake.latest().input.confirm).toBeUndefined();
    const messages = actor.getSnapshot().context.messages;
    expect(messages.at(-2)?.confirmation?.outcome).toBe('cancelled');
  });

  it('says a confirmation expired and offers Retry, which asks the model again', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { actor, fake } = await proposed();
    actor.send({ type: 'action.confirm' });
    fake.latest().reject(refusal('expired'));
    await settled(actor, 'idle');
    expect(actor.getSnapshot().matches({ idle: 'retryable' })).toBe(true);
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({
      text: EXPIRED,
      sender: 'bot',
      status: 'failed',
    });
    actor.send({ type: 'reply.retry' });
    expect(fake.latest().input).toMatchObject({ text: 'Can you call me back tomorrow morning?' });
    expect(fake.latest().input.confirm).toBeUndefined();
  });

  it('says in one sentence that the action failed, in the texts it is given', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { actor, fake } = await proposed();
    actor.send({ type: 'action.confirm' });
    fake.latest().reject(refusal('failed'));
    await settled(actor, 'idle');
    expect(actor.getSnapshot().context.messages.at(-1)?.text).toBe(FAILED);

    // Without the texts (a machine started bare), the spec's error.
    const bare = startChat();
    submit(bare.actor, 'Call me');
    bare.fake.latest().actions({ notes: [], confirmation: CONFIRMATION });
    bare.fake.latest().resolve('Please confirm.');
    await settled(bare.actor, 'confirming');
    bare.actor.send({ type: 'action.confirm' });
    bare.fake.latest().reject(refusal('expired'));
    await settled(bare.actor, 'idle');
    expect(bare.actor.getSnapshot().context.messages.at(-1)?.text).toBe('Error: Unable to get response');

    const german = startChat({}, { statusTexts: { noContent: '-', error: '-', actionFailed: 'Ging nicht.' } });
    submit(german.actor, 'Rückruf bitte');
    german.fake.latest().actions({ notes: [], confirmation: CONFIRMATION });
    german.fake.latest().resolve('Bitte bestätigen.');
    await settled(german.actor, 'confirming');
    german.actor.send({ type: 'action.confirm' });
    german.fake.latest().reject(refusal('failed'));
    await settled(german.actor, 'idle');
    expect(german.actor.getSnapshot().context.messages.at(-1)?.text).toBe('Ging nicht.');
  });

  it('leaves a proposal unconfirmed when the reply that brought it fails or is stopped', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { actor, fake } = startChat();
    submit(actor, 'Call me back');
    fake.latest().actions({ notes: [], confirmation: CONFIRMATION });
    fake.latest().reject(new Error('network'));
    await settled(actor, 'idle');
    expect(actor.getSnapshot().matches({ idle: 'retryable' })).toBe(true);

    actor.send({ type: 'reply.retry' });
    fake.latest().actions({ notes: [], confirmation: CONFIRMATION });
    fake.latest().delta('I can');
    actor.send({ type: 'reply.stop' });
    expect(actor.getSnapshot().matches({ idle: 'retryable' })).toBe(true);
    expect(actor.getSnapshot().context.messages.some((message) => message.confirmation)).toBe(false);
  });

  it('forgets a pending confirmation with the conversation', async () => {
    const { actor } = await proposed();
    actor.send({ type: 'conversation.clear' });
    expect(actor.getSnapshot().matches({ idle: 'ready' })).toBe(true);
    expect(actor.getSnapshot().context.messages).toEqual([]);
  });
});
