import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import type { ChatMessage } from '../../machines/chat-machine';
import { chatMachine } from '../../machines/chat-machine';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import {
  KEPT_CONVERSATION_KEY,
  KEPT_CONVERSATION_VERSION,
  keepConversation,
  MAX_KEPT_CHARACTERS,
  MAX_KEPT_MESSAGES,
  readKeptConversation,
  writeKeptConversation,
} from './kept-conversation';

const messages: ChatMessage[] = [
  { text: 'Hi', sender: 'user' },
  { text: 'Hello', sender: 'bot', status: 'answer' },
];

afterEach(() => {
  sessionStorage.clear();
  vi.restoreAllMocks();
});

describe('the conversation kept for the tab', () => {
  it('reads back what it wrote, the last 50 messages only, and removes it when there is none', () => {
    writeKeptConversation(messages);
    expect(readKeptConversation()).toEqual(messages);
    const many = Array.from({ length: 60 }, (_, index) => ({ text: `m${index}`, sender: 'user' as const }));
    writeKeptConversation(many);
    expect(readKeptConversation()).toEqual(many.slice(-MAX_KEPT_MESSAGES));
    writeKeptConversation([]);
    expect(sessionStorage.getItem(KEPT_CONVERSATION_KEY)).toBeNull();
    expect(localStorage.length).toBe(0);
  });

  const v = KEPT_CONVERSATION_VERSION;
  it.each([
    ['not JSON', '{"v":2,'],
    ['of another version', JSON.stringify({ v: 0, messages })],
    // Version 1 knew a failed reply only by its text, in the language of the page that wrote it.
    ['of version 1', JSON.stringify({ v: 1, messages: [messages[0], { text: 'Hel', sender: 'bot', stopped: true }] })],
    ['of the wrong shape', JSON.stringify({ v, messages: [{ text: 1, sender: 'user' }] })],
    ['with a bot message of no status', JSON.stringify({ v, messages: [messages[0], { text: 'Hi', sender: 'bot' }] })],
    ['with a status unknown', JSON.stringify({ v, messages: [messages[0], { ...messages[1], status: 'error' }] })],
    ["with a status on the visitor's message", JSON.stringify({ v, messages: [{ ...messages[0], status: 'answer' }] })],
    ['too large', JSON.stringify({ v, messages: [{ text: 'x'.repeat(MAX_KEPT_CHARACTERS), sender: 'user' }] })],
  ])('drops data %s with a warning', (_, text) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    sessionStorage.setItem(KEPT_CONVERSATION_KEY, text);
    expect(readKeptConversation()).toBeUndefined();
    expect(warn).toHaveBeenCalledOnce();
    expect(sessionStorage.getItem(KEPT_CONVERSATION_KEY)).toBeNull();
  });

  it("reads back a reply's sources, and drops data whose sources are no web addresses", () => {
    const sources = [{ n: 1, title: 'Returns', url: 'https://www.example.com/returns' }];
    writeKeptConversation([...messages, { text: 'Within thirty days [1].', sender: 'bot', status: 'answer', sources }]);
    expect(readKeptConversation()?.at(-1)).toEqual({
      text: 'Within thirty days [1].',
      sender: 'bot',
      status: 'answer',
      sources,
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const hostile = [
      { text: 'See [1]', sender: 'bot', status: 'answer', sources: [{ n: 1, title: 'x', url: 'javascript:alert(1)' }] },
    ];
    sessionStorage.setItem(KEPT_CONVERSATION_KEY, JSON.stringify({ v: KEPT_CONVERSATION_VERSION, messages: hostile }));
    expect(readKeptConversation()).toBeUndefined();
    expect(warn).toHaveBeenCalledOnce();
  });

  it('survives a full quota', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const full = {
      getItem: () => null,
      removeItem: () => undefined,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    } as unknown as Storage;
    expect(() => writeKeptConversation(messages, full)).not.toThrow();
    expect(warn).toHaveBeenCalledOnce();
  });

  it('keeps a reply still coming in as a stopped one with what had arrived when the page is left', async () => {
    const fake = createControllableFetchReply();
    const actor = createActor(chatMachine.provide({ actors: { fetchReply: fake.logic } })).start();
    const stop = keepConversation(actor);
    actor.send({ type: 'message.submit', text: 'Hi' });
    const writes = vi.spyOn(Storage.prototype, 'setItem');
    fake.latest().delta('Hel');
    expect(writes, "a reply's pieces are not written one by one").not.toHaveBeenCalled();
    dispatchEvent(new Event('pagehide'));
    expect(readKeptConversation()).toEqual([
      { text: 'Hi', sender: 'user' },
      { text: 'Hel', sender: 'bot', status: 'stopped' },
    ]);
    // Shown again from the back-forward cache, the page goes on keeping.
    dispatchEvent(new Event('pageshow'));
    const sources = [{ n: 1, title: 'Hello', url: 'https://www.example.com/hello' }];
    fake.latest().sources(sources);
    fake.latest().delta('lo [1]');
    dispatchEvent(new Event('pagehide'));
    const cut = { text: 'Hello [1]', sender: 'bot', status: 'stopped', sources };
    expect(readKeptConversation()?.at(-1)).toEqual(cut);
    // Leaving cuts the request off: the machine takes it for an error, which the next page is not given.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    fake.latest().reject(new TypeError('network error'));
    await vi.waitFor(() =>
      expect(actor.getSnapshot().context.messages.at(-1)?.text).toBe('Error: Unable to get response'),
    );
    expect(readKeptConversation()?.at(-1)).toEqual(cut);
    dispatchEvent(new Event('pageshow'));
    actor.send({ type: 'conversation.clear' });
    expect(sessionStorage.getItem(KEPT_CONVERSATION_KEY)).toBeNull();
    stop();
    actor.stop();
  });
});
