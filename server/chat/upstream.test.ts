import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { chatBody, PINNED_MODEL, postChat, providerOn, proxyHarness, TOKEN, until } from '../../testing/proxy-app.ts';

const { provider, start } = await proxyHarness();

describe('upstream failures', () => {
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
        upstream: providerOn(port),
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
