import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { chatBody, PINNED_MODEL, postChat, providerOn, proxyHarness, until } from '../../testing/proxy-app.ts';
import { EventReader, MAX_EVENT_BYTES } from './event-reader.ts';
import { describeProviderError, rebuildChunk, rebuildCompletion } from './reply-rebuild.ts';

const { provider, start } = await proxyHarness();

describe('relaying a stream', () => {
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
        upstream: providerOn(port),
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
        upstream: providerOn(port),
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
    // Twelve pieces 50 ms apart: about 600 ms in all, with a limit of 400 ms between two pieces (a busy machine's pause
    // between two pieces stays well under it).
    provider.respondWith({ stream: Array.from({ length: 12 }, (_, index) => `p${index} `), pieceDelayMs: 50 });
    const { url } = await start({ timeoutMs: 400 });
    const text = await (await postChat(url, chatBody('hi', { stream: true }))).text();

    expect(text).toContain('"p11 "');
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

describe('reading events as they arrive', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it('reads events cut anywhere, with any line ends, and drops comments and other fields', () => {
    const reader = new EventReader();
    const whole = ': a comment\r\ndata: {"a":1}\r\nid: 7\r\n\r\nevent: vendor\ndata: x\ndata: y\n\ndata: [DONE]\r\r';
    const events = [];
    // One byte at a time: every cut, the CR and LF of one line end in two pieces included.
    for (const byte of encode(whole)) {
      const read = reader.push(Uint8Array.of(byte));
      if (read === 'too-large') throw new Error('not too large');
      events.push(...read);
    }
    expect(events).toEqual([
      { data: '{"a":1}', name: '' },
      { data: 'x\ny', name: 'vendor' },
      { data: '[DONE]', name: '' },
    ]);
  });

  it('gives up on one event past 64 KiB, whether it comes in one piece or many', () => {
    const big = 'x'.repeat(MAX_EVENT_BYTES);
    expect(new EventReader().push(encode(`data: ${big}\n\n`))).toBe('too-large');
    const reader = new EventReader();
    expect(reader.push(encode('data: '))).toEqual([]);
    expect(reader.push(encode(big))).toBe('too-large');
    // Many lines of one event count together; many small events do not.
    const lines = new EventReader();
    expect(lines.push(encode(': keep-alive\n'.repeat(6000)))).toBe('too-large');
    expect(new EventReader().push(encode('data: {}\n\n'.repeat(10_000)))).toHaveLength(10_000);
  });
});

describe('rebuilding what the page reads', () => {
  it("keeps a chunk's role, content, finish reason and usage, and nothing else", () => {
    const chunk = {
      id: 'chatcmpl-x',
      system_fingerprint: 'fp_secret',
      x_account: 'org-secret',
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', content: 'Hi', tool_calls: [{}] },
          finish_reason: 'stop',
          logprobs: {},
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, cost: 1 },
    };
    expect(rebuildChunk(chunk)).toEqual({
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    expect(rebuildChunk({ choices: [], usage: chunk.usage })).toBeUndefined();
    expect(rebuildChunk({ vendor: 'keep-alive' })).toBeUndefined();
  });

  it("keeps a completion's messages as the assistant's, and its usage", () => {
    const completion = {
      id: 'chatcmpl-x',
      system_fingerprint: 'fp_secret',
      choices: [{ index: 0, message: { role: 'system', content: null, refusal: 'no' }, finish_reason: 'Bad reason!' }],
    };
    expect(rebuildCompletion(completion)).toEqual({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: null }],
    });
    expect(rebuildCompletion('nonsense')).toEqual({ object: 'chat.completion', choices: [] });
  });

  it('describes a provider error by its type and code only', () => {
    const error = { message: 'Rate limit for key sk-secret', type: 'rate_limit', code: 'org-limit' };
    expect(describeProviderError(error)).toBe('type=rate_limit code=org-limit');
    expect(describeProviderError({ type: 'has spaces sk-secret', code: 429 })).toBe('type=- code=429');
    expect(describeProviderError('sk-secret')).toBe('type=- code=-');
  });
});
