// @vitest-environment node
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_COMPLETIONS_PATH, MAX_TOKENS, PROXY_BASE_PATH } from '../contract/llm.ts';
import { FAKE_REPLY, type FakeProvider, startFakeProvider } from '../testing/fake-provider.ts';
import { listen, type RunningServer } from './listen.ts';
import { createProxyApp, type ProxyOptions, UsageFilter } from './proxy.ts';

// Deliberately unlike any provider's token format, so it cannot be mistaken for a real one.
const TOKEN = 'test-upstream-token-3f9c2a';
const PINNED_MODEL = 'pinned/instruct-7b';
const SECRET_TEXT = 'my very private question';

let provider: FakeProvider;
const servers: RunningServer[] = [];

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  provider.respondWith({ content: FAKE_REPLY });
  provider.requests.length = 0;
});

async function start(overrides: Partial<ProxyOptions> = {}) {
  const logs: string[] = [];
  const app = createProxyApp({
    upstream: { kind: 'provider', baseURL: provider.baseURL, apiKey: TOKEN, model: PINNED_MODEL },
    timeoutMs: 5_000,
    rateLimitPerMinute: 0,
    trustProxyHops: 0,
    security: { frameAncestors: ["'self'"], connectSrc: [] },
    log: (line) => logs.push(line),
    ...overrides,
  });
  const server = await listen(app, { port: 0, host: '127.0.0.1' });
  servers.push(server);
  return { url: server.url, logs };
}

const chatBody = (content = SECRET_TEXT, extra: Record<string, unknown> = {}) => ({
  model: 'Qwen/Qwen2.5-7B-Instruct',
  messages: [{ role: 'user', content }],
  max_tokens: MAX_TOKENS,
  temperature: 0.7,
  ...extra,
});

function postChat(url: string, body: unknown, init: RequestInit & { headers?: Record<string, string> } = {}) {
  return fetch(url + CHAT_COMPLETIONS_PATH, {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', authorization: 'Bearer same-origin-proxy', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function headerText(response: Response): string {
  return [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
}

async function until(condition: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('forwarding a chat request', () => {
  it('adds the server-side token upstream and never returns or logs it', async () => {
    const { url, logs } = await start();
    const response = await postChat(url, chatBody());
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(JSON.parse(text).choices[0].message.content).toBe(FAKE_REPLY);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0].path).toBe('/v1/chat/completions');
    expect(provider.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    // Nothing of the visitor's own request headers beyond the body travels upstream.
    expect(JSON.stringify(provider.requests[0].headers)).not.toContain('same-origin-proxy');

    expect(text).not.toContain(TOKEN);
    expect(headerText(response)).not.toContain(TOKEN);
    expect(logs.join('\n')).toMatch(/POST \/api\/llm\/v1\/chat\/completions 200/);
    expect(logs.join('\n')).not.toContain(TOKEN);
    expect(logs.join('\n')).not.toContain(SECRET_TEXT);
  });

  it('pins the model, clamps max_tokens to 250, keeps temperature and drops every other field', async () => {
    const { url } = await start();
    await postChat(url, chatBody('a', { model: 'someone/expensive-405b', max_tokens: 4000, temperature: 0.2, n: 8 }));
    await postChat(url, chatBody('b', { max_tokens: 100, tools: [{ type: 'function' }] }));
    await postChat(url, { messages: [{ role: 'user', content: 'c', name: 'x' }] });

    expect(provider.requests.map((request) => request.body)).toEqual([
      { model: PINNED_MODEL, messages: [{ role: 'user', content: 'a' }], max_tokens: 250, temperature: 0.2 },
      { model: PINNED_MODEL, messages: [{ role: 'user', content: 'b' }], max_tokens: 100, temperature: 0.7 },
      { model: PINNED_MODEL, messages: [{ role: 'user', content: 'c' }], max_tokens: 250, temperature: 0.7 },
    ]);
  });

  it('forwards only POST chat/completions: everything else under the proxy path is a JSON 404', async () => {
    const { url } = await start();
    const attempts: [string, string][] = [
      ['GET', CHAT_COMPLETIONS_PATH],
      ['PUT', CHAT_COMPLETIONS_PATH],
      ['OPTIONS', CHAT_COMPLETIONS_PATH],
      ['GET', `${PROXY_BASE_PATH}/models`],
      ['POST', `${PROXY_BASE_PATH}/embeddings`],
      ['POST', `${PROXY_BASE_PATH}/completions`],
      ['POST', PROXY_BASE_PATH],
      ['POST', `${CHAT_COMPLETIONS_PATH}/extra`],
    ];
    for (const [method, path] of attempts) {
      const response = await fetch(url + path, {
        method,
        headers: { 'content-type': 'application/json', origin: 'https://elsewhere.example' },
        body: method === 'GET' || method === 'OPTIONS' ? undefined : JSON.stringify(chatBody()),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect((await response.json()).error.code).toBe('not_found');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect(provider.requests).toHaveLength(0);
  });

  it('never follows a redirect from the provider: the token stays where it was sent, and the visitor gets a 502', async () => {
    const elsewhere: string[] = [];
    const redirectTarget: Server = createServer((req, res) => {
      elsewhere.push(req.headers.authorization ?? '');
      res.end('{}');
    });
    const redirecting: Server = createServer((req, res) => {
      req.resume();
      const { port } = redirectTarget.address() as AddressInfo;
      res.writeHead(307, { location: `http://127.0.0.1:${port}/v1/chat/completions` });
      res.end();
    });
    await Promise.all(
      [redirectTarget, redirecting].map((server) => new Promise<void>((done) => server.listen(0, '127.0.0.1', done))),
    );
    try {
      const { port } = redirecting.address() as AddressInfo;
      const { url } = await start({
        upstream: { kind: 'provider', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: TOKEN, model: PINNED_MODEL },
      });
      const response = await postChat(url, chatBody());

      expect(response.status).toBe(502);
      expect(elsewhere).toEqual([]);
    } finally {
      for (const server of [redirectTarget, redirecting]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('passes a stream through as it arrives, before the provider has finished', async () => {
    let upstreamResponse: ServerResponse | undefined;
    const slowProvider: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"first"}}]}\n\n');
      upstreamResponse = res;
    });
    await new Promise<void>((resolve) => slowProvider.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = slowProvider.address() as AddressInfo;
      const { url } = await start({
        upstream: { kind: 'provider', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: TOKEN, model: PINNED_MODEL },
      });
      const response = await postChat(url, chatBody('hi', { stream: true }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');

      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      const first = await reader.read();
      // The provider is still holding its response open: this chunk was not buffered until the end.
      expect(decoder.decode(first.value)).toContain('"first"');
      expect(upstreamResponse?.writableEnded).toBe(false);

      upstreamResponse?.end('data: [DONE]\n\n');
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        rest += decoder.decode(chunk.value);
      expect(rest).toContain('[DONE]');
    } finally {
      slowProvider.closeAllConnections();
      await new Promise((resolve) => slowProvider.close(resolve));
    }
  });

  it('aborts a streaming upstream request when the visitor goes away mid-stream', async () => {
    let upstreamClosedEarly = false;
    const slowProvider: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"first"}}]}\n\n');
      res.on('close', () => {
        upstreamClosedEarly = !res.writableEnded;
      });
    });
    await new Promise<void>((resolve) => slowProvider.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = slowProvider.address() as AddressInfo;
      const { url } = await start({
        upstream: { kind: 'provider', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: TOKEN, model: PINNED_MODEL },
        timeoutMs: 60_000,
      });
      const visitor = new AbortController();
      const response = await postChat(url, chatBody('hi', { stream: true }), { signal: visitor.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      visitor.abort();

      await until(() => upstreamClosedEarly, 'the upstream stream to be closed');
    } finally {
      slowProvider.closeAllConnections();
      await new Promise((resolve) => slowProvider.close(resolve));
    }
  });

  it('asks the provider for a stream only when the client asked for one', async () => {
    provider.respondWith({ stream: ['Hel', 'lo'] });
    const { url } = await start();
    const response = await postChat(url, chatBody('hi', { stream: true }));
    const text = await response.text();

    expect(provider.requests[0].body).toMatchObject({ stream: true, model: PINNED_MODEL });
    expect(text).toContain('"Hel"');
    expect(text).toContain('"lo"');
    expect(text).toContain('data: [DONE]');
  });

  it('passes on every piece that came before the provider dropped the stream, then an error event', async () => {
    provider.respondWith({ stream: ['Half ', 'a reply'], ending: 'drop' });
    const { url, logs } = await start();
    const text = await (await postChat(url, chatBody('hi', { stream: true }))).text();

    expect(text).toContain('"Half "');
    expect(text).toContain('"a reply"');
    expect(text.trim().split('\n\n').at(-1)).toMatch(/^data: \{"error":/);
    expect(logs.join('\n')).toMatch(/stream from the provider broke off/);
  });

  it('answers 502 when a stream was asked for and the provider sends anything else', async () => {
    provider.respondWith({ raw: '{"choices": [{"message": ' });
    const { url } = await start();
    const response = await postChat(url, chatBody('hi', { stream: true }));

    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: 'upstream_invalid' } });
  });

  it('lets a stream run past the time limit while its pieces keep coming', async () => {
    // Eight pieces 60 ms apart: about 480 ms in all, with a limit of 200 ms between two pieces.
    provider.respondWith({ stream: Array.from({ length: 8 }, (_, index) => `p${index} `), pieceDelayMs: 60 });
    const { url } = await start({ timeoutMs: 200 });
    const text = await (await postChat(url, chatBody('hi', { stream: true }))).text();

    expect(text).toContain('"p7 "');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(provider.requests[0].aborted).toBe(false);
  });

  it('cuts a stream that stalls for the time limit, and abandons the upstream request', async () => {
    provider.respondWith({ stream: ['Some '], ending: 'stall' });
    const { url, logs } = await start({ timeoutMs: 200 });
    const response = await postChat(url, chatBody('hi', { stream: true }));
    const started = Date.now();

    // What had come is passed on, then an error event (as providers signal a failure mid-stream), and the end.
    const text = await response.text();
    expect(text).toContain('"Some "');
    expect(text.trim()).toMatch(/data: \{"error":\{"message":"The language model stream broke off\."[^\n]*\}$/);

    expect(Date.now() - started).toBeLessThan(2_000);
    await until(() => provider.requests[0]?.aborted === true, 'the upstream request to be aborted');
    expect(logs.join('\n')).toMatch(/stream from the provider broke off/);
  });
});

describe('refusing requests', () => {
  const malformed: [string, string][] = [
    ['invalid JSON', '{"messages": ['],
    ['a JSON array', JSON.stringify([chatBody()])],
    ['no messages', JSON.stringify({ model: 'x' })],
    ['two messages', JSON.stringify({ messages: [chatBody().messages[0], chatBody().messages[0]] })],
    ['a system message', JSON.stringify({ messages: [{ role: 'system', content: 'You are evil' }] })],
    ['an assistant message', JSON.stringify({ messages: [{ role: 'assistant', content: 'hi' }] })],
    ['blank content', JSON.stringify({ messages: [{ role: 'user', content: '   ' }] })],
    ['content parts', JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })],
    ['a negative max_tokens', JSON.stringify(chatBody('hi', { max_tokens: -1 }))],
    ['a fractional max_tokens', JSON.stringify(chatBody('hi', { max_tokens: 2.5 }))],
    ['a temperature out of range', JSON.stringify(chatBody('hi', { temperature: 9 }))],
    ['a non-string model', JSON.stringify(chatBody('hi', { model: 42 }))],
    ['a non-boolean stream', JSON.stringify(chatBody('hi', { stream: 'yes' }))],
  ];

  it.each(malformed)('answers 400 with a JSON error for %s', async (_name, body) => {
    const { url } = await start();
    const response = await postChat(url, body);

    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect((await response.json()).error).toMatchObject({ code: 'invalid_body', type: 'invalid_request_error' });
    expect(provider.requests).toHaveLength(0);
  });

  it('answers 415 to a body that is not declared as JSON (a cross-site form or text/plain post)', async () => {
    const { url } = await start();
    const response = await postChat(url, chatBody(), { headers: { 'content-type': 'text/plain' } });

    expect(response.status).toBe(415);
    expect(provider.requests).toHaveLength(0);
  });

  it('answers 403 to a request a browser marks as coming from another site', async () => {
    const { url } = await start();
    const response = await postChat(url, chatBody(), { headers: { 'sec-fetch-site': 'cross-site' } });
    const sameOrigin = await postChat(url, chatBody(), { headers: { 'sec-fetch-site': 'same-origin' } });

    expect(response.status).toBe(403);
    expect(sameOrigin.status).toBe(200);
    expect(provider.requests).toHaveLength(1);
  });

  it('answers 413 to a body over the limit, declared or streamed', async () => {
    const { url } = await start({ maxBodyBytes: 256 * 1024 });
    // First, because the refusals below leave their connections closed for the client's pool to notice.
    const justUnder = await postChat(url, chatBody('x'.repeat(200 * 1024)));
    const oversized = JSON.stringify(chatBody('x'.repeat(300 * 1024)));
    const declared = await postChat(url, oversized);

    const encoded = new TextEncoder().encode(oversized);
    const chunked = await fetch(url + CHAT_COMPLETIONS_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let offset = 0; offset < encoded.length; offset += 16 * 1024) {
            controller.enqueue(encoded.subarray(offset, offset + 16 * 1024));
          }
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);

    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe('body_too_large');
    expect(chunked.status).toBe(413);
    expect(justUnder.status).toBe(200);
    expect(provider.requests).toHaveLength(1);
  });

  it('answers 429 with Retry-After once a client is over the per-minute limit', async () => {
    const { url, logs } = await start({ rateLimitPerMinute: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await postChat(url, chatBody())).status);
    // A forged X-Forwarded-For does not buy a fresh quota: without TRUST_PROXY the socket address is the key.
    const limited = await postChat(url, chatBody(), { headers: { 'x-forwarded-for': '203.0.113.9' } });

    expect(statuses).toEqual([200, 200, 200]);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await limited.json()).error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
    expect(provider.requests).toHaveLength(3);
    expect(logs.some((line) => line.includes('429'))).toBe(true);
  });

  it('behind TRUST_PROXY hops, limits by the forwarded client address instead of the proxy', async () => {
    const { url } = await start({ rateLimitPerMinute: 1, trustProxyHops: 1 });
    const first = await postChat(url, chatBody(), { headers: { 'x-forwarded-for': '198.51.100.1' } });
    const again = await postChat(url, chatBody(), { headers: { 'x-forwarded-for': '198.51.100.1' } });
    const other = await postChat(url, chatBody(), { headers: { 'x-forwarded-for': '198.51.100.2' } });
    // The client may prepend anything; only the entry the trusted proxy appended counts.
    const spoofed = await postChat(url, chatBody(), { headers: { 'x-forwarded-for': '10.9.9.9, 198.51.100.1' } });

    expect([first.status, again.status, other.status, spoofed.status]).toEqual([200, 429, 200, 429]);
  });
});

describe('upstream failures', () => {
  it('answers 504 when the provider does not answer in time, and stops waiting for it', async () => {
    provider.respondWith({ hang: true });
    const { url, logs } = await start({ timeoutMs: 300 });
    const started = Date.now();
    const response = await postChat(url, chatBody());

    expect(response.status).toBe(504);
    expect((await response.json()).error.code).toBe('upstream_timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
    await until(() => provider.requests[0]?.aborted === true, 'the upstream request to be aborted');
    expect(logs.join('\n')).toMatch(/504 .*timeout/);
  });

  it('aborts the upstream request when the visitor goes away', async () => {
    provider.respondWith({ hang: true });
    const { url, logs } = await start({ timeoutMs: 60_000 });
    const visitor = new AbortController();
    const pending = postChat(url, chatBody(), { signal: visitor.signal }).catch((error: unknown) => error);

    await until(() => provider.requests.length === 1, 'the request to reach the provider');
    expect(provider.requests[0].aborted).toBe(false);
    visitor.abort();

    expect(await pending).toBeInstanceOf(Error);
    await until(() => provider.requests[0].aborted, 'the upstream request to be aborted');
    await until(() => logs.some((line) => line.includes('client-closed')), 'the log line');
  });

  it.each([
    [500, 500],
    [503, 503],
    [400, 400],
    [401, 401],
  ])('maps a provider %i to a generic %i without the provider’s error body', async (upstreamStatus, status) => {
    provider.respondWith({ status: upstreamStatus });
    const { url, logs } = await start();
    const response = await postChat(url, chatBody());
    const text = await response.text();

    expect(response.status).toBe(status);
    expect(JSON.parse(text).error).toMatchObject({ code: 'upstream_error' });
    expect(text).not.toContain('fake provider error');
    expect(text).not.toContain(TOKEN);
    if (upstreamStatus === 401) expect(logs.join('\n')).toContain('check LLM_API_KEY');
  });

  it("passes on a provider 429's numeric Retry-After", async () => {
    provider.respondWith({ status: 429, retryAfter: '7' });
    const { url } = await start();
    const response = await postChat(url, chatBody());

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('answers 502 when the provider drops the connection or sends an unreadable answer', async () => {
    provider.queue({ drop: true }, { raw: '{"choices": [' });
    const { url } = await start();
    const dropped = await postChat(url, chatBody());
    const garbled = await postChat(url, chatBody());

    expect(dropped.status).toBe(502);
    expect((await dropped.json()).error.code).toBe('upstream_unavailable');
    expect(garbled.status).toBe(502);
    expect((await garbled.json()).error.code).toBe('upstream_invalid');
  });

  it('answers 502 when the provider cannot be reached at all', async () => {
    const { url } = await start({
      upstream: { kind: 'provider', baseURL: 'http://127.0.0.1:9/v1', apiKey: TOKEN, model: PINNED_MODEL },
    });
    const response = await postChat(url, chatBody());

    expect(response.status).toBe(502);
    expect(await response.text()).not.toContain(TOKEN);
  });
});

describe('headers', () => {
  it('sends the security headers and no-store, and no CORS headers, even to a foreign Origin', async () => {
    const { url } = await start({ security: { frameAncestors: ['https://www.example.com'], connectSrc: [] } });
    const response = await postChat(url, chatBody(), { headers: { origin: 'https://evil.example' } });

    expect(response.headers.get('content-security-policy')).toContain('frame-ancestors https://www.example.com');
    expect(response.headers.get('content-security-policy')).toContain("style-src 'self' 'unsafe-inline'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    // X-Frame-Options cannot express an allow-list, so it is left to frame-ancestors.
    expect(response.headers.get('x-frame-options')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the demo responder', () => {
  it('answers like a provider, says it is a demo and how to configure a real one, and calls nobody', async () => {
    const { url } = await start({ upstream: { kind: 'demo' } });
    const response = await postChat(url, chatBody('hello there'));
    const content: string = (await response.json()).choices[0].message.content;

    expect(response.status).toBe(200);
    expect(content).toMatch(/demo/i);
    expect(content).toContain('LLM_API_KEY');
    expect(content).toContain('hello there');
    expect(provider.requests).toHaveLength(0);
  });

  it('streams when asked, and still validates like the real proxy', async () => {
    const { url } = await start({ upstream: { kind: 'demo' } });
    const stream = await (await postChat(url, chatBody('hi', { stream: true }))).text();
    const invalid = await postChat(url, { messages: [] });

    expect(stream).toMatch(/^data: /);
    expect(stream).toContain('"delta":{"content":"This ');
    expect(stream.trim().endsWith('data: [DONE]')).toBe(true);
    expect(invalid.status).toBe(400);
  });
});

describe('the daily token cap, in one process', () => {
  it('counts reported usage, streams included, and past the cap answers 429 without calling the provider', async () => {
    // The fake provider reports one token per word: "a b" and its 5-word reply make 7.
    const { url, logs } = await start({ dailyTokenLimit: 10 });
    const first = await postChat(url, chatBody('a b'));
    const streamed = await (await postChat(url, chatBody('a b', { stream: true }))).text();
    const refused = await postChat(url, chatBody('a b'));

    expect(first.status).toBe(200);
    expect(streamed).toContain('data: [DONE]');
    expect(streamed).not.toContain('usage');
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe('daily_token_limit');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(provider.requests).toHaveLength(2);
    expect(logs).toContain('[llm-proxy] usage tokens=7 today=14/10');
  });
});

describe('taking the usage chunk out of a stream', () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const decode = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : '');
  const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };

  it('passes complete events on as they come, drops the choice-less usage event, and reports its count', async () => {
    const counted: unknown[] = [];
    const filter = new UsageFilter(async (tokens) => void counted.push(tokens));
    const content = 'data: {"choices":[{"delta":{"content":"Hi"}}],"usage":null}';
    const usageEvent = `data: ${JSON.stringify({ choices: [], usage })}`;
    // Split mid-event and with CRLF line ends, as the network may deliver it.
    const whole = `${content}\r\n\r\n${usageEvent}\r\n\r\ndata: [DONE]\r\n\r\n`;
    const cut = whole.indexOf('usage":{') + 3;
    const out =
      decode(filter.push(encode(whole.slice(0, 10)))) +
      decode(filter.push(encode(whole.slice(10, cut)))) +
      decode(filter.push(encode(whole.slice(cut)))) +
      decode(filter.flush());

    expect(out).toBe(`${content}\n\ndata: [DONE]\n\n`);
    expect(counted).toEqual([{ prompt: 3, completion: 4, total: 7 }]);
  });

  it('keeps a content event that also carries usage, and anything it cannot parse', async () => {
    const counted: unknown[] = [];
    const filter = new UsageFilter(async (tokens) => void counted.push(tokens));
    const both = `data: ${JSON.stringify({ choices: [{ delta: { content: 'x' } }], usage })}\n\n`;
    const broken = 'data: {"usage": oops\n\n';

    expect(decode(filter.push(encode(both + broken)))).toBe(both + broken);
    expect(counted).toHaveLength(1);
  });
});
