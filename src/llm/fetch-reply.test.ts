// @vitest-environment node
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { FAKE_REPLY, type FakeProvider, startFakeProvider } from '../../testing/fake-provider';
import { createFetchReply } from './fetch-reply';
import { type LlmConfig, readLlmConfig } from './llm-config';
import { requestReply } from './request-reply';

// The real openai client over real HTTP to a scripted provider on 127.0.0.1. The key is a fake: nothing leaves
// this machine.
const TEST_KEY = 'test-key-not-real';
const TEST_MODEL = 'test/instruct-7b';

let provider: FakeProvider;
let config: LlmConfig;

/** A configuration as the app reads it in direct mode, pointed at the fake provider. */
function directConfig(timeoutMs: number): LlmConfig {
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
    },
    'http://page.example.test',
  );
}

const ask = (text = 'Hello', signal = new AbortController().signal, withConfig = config) =>
  requestReply(text, signal, withConfig);

beforeAll(async () => {
  provider = await startFakeProvider();
  config = directConfig(5_000);
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

    // Whichever fires first, the client's own timeout or the overall deadline, the error says it was a timeout.
    await expect(ask('Hello', new AbortController().signal, directConfig(300))).rejects.toThrow(
      /timed out|No complete reply within 300 ms/,
    );

    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1_500);
    await vi.waitFor(() => expect(provider.requests[0]?.aborted).toBe(true), { timeout: 1_000 });
    expect(provider.requests).toHaveLength(1);
  });

  it('rejects within its timeout when the answer starts but its body never ends', async () => {
    // The fake provider answers whole or not at all, so this one server sends headers and half a body, then stalls.
    const stalled = new Set<ServerResponse>();
    const server = createServer((_req, res) => {
      stalled.add(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices": [');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const stallingConfig = { ...directConfig(300), baseURL: `http://127.0.0.1:${port}/v1` };
      const started = performance.now();

      await expect(ask('Hello', new AbortController().signal, stallingConfig)).rejects.toThrow(
        'No complete reply within 300 ms',
      );

      expect(performance.now() - started).toBeLessThan(1_500);
      expect(stalled.size).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('rejects, and the provider sees the request abandoned, when the caller aborts', async () => {
    provider.queue({ hang: true });
    const controller = new AbortController();
    const pending = ask('Hello', controller.signal);
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1), { timeout: 1_000 });

    controller.abort();

    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    await vi.waitFor(() => expect(provider.requests[0].aborted).toBe(true), { timeout: 1_000 });
  });

  it('rejects without answering when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(ask('Hello', controller.signal)).rejects.toBeInstanceOf(APIUserAbortError);
  });
});

describe('createFetchReply in the chat machine', () => {
  function startChat() {
    const actor = createActor(chatMachine.provide({ actors: { fetchReply: createFetchReply(config) } }));
    actor.start();
    actor.send({ type: 'draft.change', text: 'Hi there' });
    actor.send({ type: 'message.submit' });
    return actor;
  }

  it("shows the provider's reply as the bot's message", async () => {
    provider.queue({ content: 'Hello from the provider' });
    const actor = startChat();

    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 2_000 });

    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi there', sender: 'user' },
      { text: 'Hello from the provider', sender: 'bot' },
    ]);
    expect(provider.requests.map((request) => request.body)).toMatchObject([
      { messages: [{ role: 'user', content: 'Hi there' }] },
    ]);
  });

  it('shows the error message and logs the failure when the provider fails', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    provider.queue({ status: 500 });
    const actor = startChat();

    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 2_000 });

    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({
      text: 'Error: Unable to get response',
      sender: 'bot',
    });
    expect(consoleError).toHaveBeenCalledWith(expect.anything(), expect.any(InternalServerError));
  });

  it('abandons the request when the chat stops while it is pending', async () => {
    provider.queue({ hang: true });
    const actor = startChat();
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1), { timeout: 2_000 });

    actor.stop();

    await vi.waitFor(() => expect(provider.requests[0].aborted).toBe(true), { timeout: 1_000 });
  });
});
