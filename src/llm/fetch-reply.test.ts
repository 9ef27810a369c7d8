// @vitest-environment node
import {
  APIConnectionError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
} from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { chatMachine } from '../../machines/chat-machine';
import { replyInput } from '../../testing/controllable-reply';
import { FAKE_REPLY, type FakeProvider, startFakeProvider } from '../../testing/fake-provider';
import { createFetchReply, replyDelays } from './fetch-reply';
import { type LlmConfig, readLlmConfig } from './llm-config';
import { batchPieces, pageLlmConfig, requestReply } from './request-reply';

// The real openai client over real HTTP to a scripted provider on 127.0.0.1. The key is a fake: nothing leaves
// this machine.
const TEST_KEY = 'test-key-not-real';
const TEST_MODEL = 'test/instruct-7b';

/** The deadline of every request no test is timing out: far longer than any test, so that none can fire under one. */
const HELD_TIMEOUT_MS = 60_000;
/** How long a test waits at most for something to happen over loopback HTTP, on however busy a machine. */
const WAIT_MS = 4_000;

let provider: FakeProvider;
let config: LlmConfig;

/** A configuration as the app reads it in direct mode, pointed at the fake provider. */
function directConfig(timeoutMs: number, stream = false): LlmConfig {
  return readLlmConfig(
    {
      BASE_URL: '/',
      MODE: 'test',
      DEV: false,
      PROD: true,
      SSR: false,
      VITE_LLM_BASE_URL: provider.baseURL,
      VITE_LLM_API_KEY: TEST_KEY,
      VITE_LLM_MODEL: TEST_MODEL,
      VITE_LLM_TIMEOUT_MS: String(timeoutMs),
      VITE_LLM_STREAM: String(stream),
    },
    'http://page.example.test',
  );
}

const ask = (text = 'Hello', signal = new AbortController().signal, withConfig = config) =>
  requestReply(replyInput(text), signal, withConfig);

beforeAll(async () => {
  provider = await startFakeProvider();
  config = directConfig(HELD_TIMEOUT_MS);
});

afterAll(async () => {
  await provider.close();
});

beforeEach(() => {
  provider.reset();
});

describe('requestReply', () => {
  it('sends one chat completion with exactly the spec payload and the bearer token, and returns the content', async () => {
    const text = '  <b>What</b> is 2 + 2? 👋  ';
    provider.queue({ content: 'Four.' });

    await expect(ask(text)).resolves.toBe('Four.');

    expect(provider.requests).toHaveLength(1);
    const [request] = provider.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.body).toEqual({
      model: TEST_MODEL,
      messages: [{ role: 'user', content: text }],
      max_tokens: 250,
      temperature: 0.7,
    });
    expect(request.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(request.headers['content-type']).toMatch(/^application\/json/);
  });

  it('sends none of the client’s x-stainless telemetry headers', async () => {
    await ask();
    const headerNames = Object.keys(provider.requests[0].headers);
    expect(headerNames.filter((name) => name.toLowerCase().startsWith('x-stainless'))).toEqual([]);
  });

  it('returns the default reply of the provider unchanged', async () => {
    await expect(ask()).resolves.toBe(FAKE_REPLY);
  });

  it.each([
    ['null content', { content: null }],
    ['no choices', { json: { choices: [] } }],
    ['an empty object', { json: {} }],
    ['a choice without a message', { json: { choices: [{ index: 0 }] } }],
    ['content that is not text', { json: { choices: [{ message: { role: 'assistant', content: 42 } }] } }],
  ])('returns null for %s', async (_, behaviour) => {
    provider.queue(behaviour);
    await expect(ask()).resolves.toBeNull();
  });

  it('returns empty content as it is, for the chat machine to answer with "No response received"', async () => {
    provider.queue({ content: '' });
    await expect(ask()).resolves.toBe('');
  });

  it.each([
    [500, InternalServerError],
    [429, RateLimitError],
    [400, BadRequestError],
    [401, AuthenticationError],
    [503, InternalServerError],
  ])('rejects on HTTP %i after exactly one request (no retries)', async (status, errorClass) => {
    // Ask for a quick retry, so that a client that did retry would do so within the wait below.
    provider.queue({ status, retryAfter: '0.01' });

    const failure = await ask().then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(errorClass);
    expect(failure).toMatchObject({ status });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(provider.requests).toHaveLength(1);
  });

  it('rejects when the connection drops, after one request', async () => {
    provider.queue({ drop: true });
    await expect(ask()).rejects.toBeInstanceOf(APIConnectionError);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(provider.requests).toHaveLength(1);
  });

  it('rejects on a streamed answer that was not asked for', async () => {
    provider.queue({ stream: ['Hel', 'lo'] });
    await expect(ask()).rejects.toThrow('not a chat completion');
  });

  it('rejects on a body that is not JSON', async () => {
    provider.queue({ raw: '{"choices": [ this is not json' });
    await expect(ask()).rejects.toThrow();
  });

  it('rejects within about its timeout when the provider never answers, and abandons the request', async () => {
    provider.queue({ hang: true });
    const started = performance.now();

    // The client's own timeout, set to the reply deadline, bounds the wait for the answer's headers.
    await expect(ask('Hello', new AbortController().signal, directConfig(300))).rejects.toThrow(/timed out/);

    // Not before the timeout; and ended by it, not by the client's own default (minutes), however busy the machine.
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(WAIT_MS);
    await vi.waitFor(() => expect(provider.requests[0]?.aborted).toBe(true), { timeout: WAIT_MS });
    expect(provider.requests).toHaveLength(1);
  });

  it('rejects, and the provider sees the request abandoned, when the caller aborts', async () => {
    provider.queue({ hang: true });
    const controller = new AbortController();
    const pending = ask('Hello', controller.signal);
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1), { timeout: WAIT_MS });

    controller.abort();

    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    await vi.waitFor(() => expect(provider.requests[0].aborted).toBe(true), { timeout: WAIT_MS });
  });

  it('rejects without answering when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(ask('Hello', controller.signal)).rejects.toBeInstanceOf(APIUserAbortError);
  });
});

describe('requestReply, streaming', () => {
  const streamConfig = () => directConfig(HELD_TIMEOUT_MS, true);
  const askStreaming = (onDelta: (text: string) => void, signal = new AbortController().signal) =>
    requestReply(replyInput('Hello', { onDelta }), signal, streamConfig());

  it('asks for a stream with the spec payload, hands over each piece as it comes, and returns them joined', async () => {
    provider.queue({ stream: ['Hel', 'lo, ', 'world 👋'], pieceDelayMs: 20 });
    const pieces: string[] = [];

    await expect(askStreaming((piece) => pieces.push(piece))).resolves.toBe('Hello, world 👋');

    expect(pieces).toEqual(['Hel', 'lo, ', 'world 👋']);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0].body).toEqual({
      model: TEST_MODEL,
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 250,
      temperature: 0.7,
      stream: true,
    });
  });

  it('returns null for a stream without content', async () => {
    provider.queue({ stream: [] });
    const onDelta = vi.fn();
    await expect(askStreaming(onDelta)).resolves.toBeNull();
    expect(onDelta).not.toHaveBeenCalled();
  });

  it.each([
    ['invalid JSON', '{"choices": [{"message": '],
    [
      'a whole JSON completion',
      JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Not a stream' } }] }),
    ],
  ])('rejects when a stream was asked for and the provider sends %s', async (_, raw) => {
    provider.queue({ raw });
    const onDelta = vi.fn();
    await expect(askStreaming(onDelta)).rejects.toThrow(/not an event stream/);
    expect(onDelta).not.toHaveBeenCalled();
  });

  it.each([
    ['the connection drops', 'drop'],
    ['an error event arrives', 'error'],
  ] as const)('rejects, after handing over what came, when %s mid-stream', async (_, ending) => {
    provider.queue({ stream: ['Half a '], ending });
    const pieces: string[] = [];
    await expect(askStreaming((piece) => pieces.push(piece))).rejects.toThrow();
    expect(pieces).toEqual(['Half a ']);
  });

  it('rejects, and the provider sees the connection close, when the caller aborts mid-stream', async () => {
    provider.queue({ openStream: true });
    const controller = new AbortController();
    const pieces: string[] = [];
    const pending = askStreaming((piece) => pieces.push(piece), controller.signal);
    await vi.waitFor(() => expect(provider.streams).toHaveLength(1), { timeout: WAIT_MS });
    provider.streams[0].piece('Some');
    await vi.waitFor(() => expect(pieces).toEqual(['Some']), { timeout: WAIT_MS });

    controller.abort();

    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(provider.requests[0].aborted).toBe(true), { timeout: WAIT_MS });
  });
});

describe('batchPieces', () => {
  const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('hands over the pieces of one task as one at its end, later ones as they come, and the rest on flush', async () => {
    const handed: string[] = [];
    const pieces = batchPieces((text) => handed.push(text));
    pieces.add('Hel');
    pieces.add('lo');
    expect(handed).toEqual([]);
    await nextTask();
    expect(handed).toEqual(['Hello']);

    pieces.add(', world');
    pieces.flush();
    expect(handed).toEqual(['Hello', ', world']);
    await nextTask();
    expect(handed, 'nothing is handed over twice').toEqual(['Hello', ', world']);
  });
});

describe('createFetchReply in the chat machine', () => {
  function startChat(withConfig = config) {
    const actor = createActor(
      chatMachine.provide({ actors: { fetchReply: createFetchReply(withConfig) }, delays: replyDelays(withConfig) }),
    );
    actor.start();
    actor.send({ type: 'draft.change', text: 'Hi there' });
    actor.send({ type: 'message.submit' });
    return actor;
  }

  it("asks with the page's own configuration (`VITE_LLM_*`), read once with the request's chunk, when given none", async () => {
    vi.stubEnv('VITE_LLM_API_KEY', TEST_KEY);
    vi.stubEnv('VITE_LLM_BASE_URL', provider.baseURL);
    vi.stubEnv('VITE_LLM_MODEL', TEST_MODEL);
    vi.stubGlobal('window', { location: { origin: 'http://page.example.test' } });
    try {
      provider.queue({ content: 'Hello from the page' });
      const actor = createActor(chatMachine.provide({ actors: { fetchReply: createFetchReply() } }));
      actor.start();
      actor.send({ type: 'draft.change', text: 'Hi there' });
      actor.send({ type: 'message.submit' });

      await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: WAIT_MS });

      expect(actor.getSnapshot().context.messages.at(-1)).toEqual({
        text: 'Hello from the page',
        sender: 'bot',
        status: 'answer',
      });
      expect(provider.requests).toMatchObject([
        { body: { model: TEST_MODEL }, headers: { authorization: `Bearer ${TEST_KEY}` } },
      ]);
      // The same object each time: one openai client for every request of the page.
      expect(pageLlmConfig()).toBe(pageLlmConfig());
    } finally {
      vi.unstubAllEnvs();
      vi.unstubAllGlobals();
    }
  });

  it("shows the provider's reply as the bot's message", async () => {
    provider.queue({ content: 'Hello from the provider' });
    const actor = startChat();

    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: WAIT_MS });

    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi there', sender: 'user' },
      { text: 'Hello from the provider', sender: 'bot', status: 'answer' },
    ]);
    expect(provider.requests.map((request) => request.body)).toMatchObject([
      { messages: [{ role: 'user', content: 'Hi there' }] },
    ]);
  });

  it('shows the error message and logs the failure when the provider fails', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    provider.queue({ status: 500 });
    const actor = startChat();

    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: WAIT_MS });

    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({
      text: 'Error: Unable to get response',
      sender: 'bot',
      status: 'failed',
    });
    expect(consoleError).toHaveBeenCalledWith(expect.anything(), expect.any(InternalServerError));
  });

  it('abandons the request when the chat stops while it is pending', async () => {
    provider.queue({ hang: true });
    const actor = startChat();
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1), { timeout: WAIT_MS });

    actor.stop();

    await vi.waitFor(() => expect(provider.requests[0].aborted).toBe(true), { timeout: WAIT_MS });
  });

  it('streams the reply into the machine piece by piece, then keeps it as one message', async () => {
    provider.queue({ openStream: true });
    const actor = startChat(directConfig(HELD_TIMEOUT_MS, true));
    await vi.waitFor(() => expect(provider.streams).toHaveLength(1), { timeout: WAIT_MS });

    provider.streams[0].piece('Hi ');
    await waitFor(actor, (snapshot) => snapshot.context.reply === 'Hi ', { timeout: WAIT_MS });
    expect(actor.getSnapshot().matches({ sending: 'streaming' })).toBe(true);
    provider.streams[0].piece('there');
    await waitFor(actor, (snapshot) => snapshot.context.reply === 'Hi there', { timeout: WAIT_MS });
    provider.streams[0].end();

    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: WAIT_MS });
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({ text: 'Hi there', sender: 'bot', status: 'answer' });
  });

  it('ends a reply whose body stalls in the error message, and the provider sees the request abandoned', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // Headers and half a body, then nothing: only the machine's deadline can end this.
    provider.queue({ stream: ['Some text'], ending: 'stall' });
    const actor = startChat(directConfig(300, true));
    const started = performance.now();

    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: WAIT_MS });

    expect(performance.now() - started).toBeLessThan(WAIT_MS);
    expect(actor.getSnapshot().context.messages.slice(1)).toEqual([
      { text: 'Some text', sender: 'bot', status: 'answer' },
      { text: 'Error: Unable to get response', sender: 'bot', status: 'failed' },
    ]);
    expect(consoleError).toHaveBeenCalledWith(
      'Chat request failed:',
      expect.objectContaining({ name: 'ReplyTimeoutError' }),
    );
    await vi.waitFor(() => expect(provider.requests[0].aborted).toBe(true), { timeout: WAIT_MS });
  });

  it('stops a streaming reply at once: the text stays, and the provider sees the connection close', async () => {
    provider.queue({ openStream: true });
    const actor = startChat(directConfig(HELD_TIMEOUT_MS, true));
    await vi.waitFor(() => expect(provider.streams).toHaveLength(1), { timeout: WAIT_MS });
    provider.streams[0].piece('Partial');
    await waitFor(actor, (snapshot) => snapshot.context.reply === 'Partial', { timeout: WAIT_MS });

    actor.send({ type: 'reply.stop' });

    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({ text: 'Partial', sender: 'bot', status: 'stopped' });
    await vi.waitFor(() => expect(provider.requests[0].aborted).toBe(true), { timeout: WAIT_MS });
  });
});
