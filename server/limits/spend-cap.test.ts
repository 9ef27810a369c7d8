import { describe, expect, it } from 'vitest';
import { MAX_TOKENS } from '../../contract/llm.ts';
import { chatBody, parallelBurst, postChat, proxyHarness, until } from '../../testing/proxy-app.ts';
import { TEMPLATE_TOKENS } from '../chat/chat-request.ts';

const { provider, start } = await proxyHarness();

/** What a one-message request reserves before it is forwarded (see `reservationFor`). */
const reservation = (text: string) => Buffer.byteLength(text) + TEMPLATE_TOKENS + MAX_TOKENS;

/** A completion as a provider that ignores usage sends it. */
const NO_USAGE = {
  id: 'chatcmpl-no-usage',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
};

describe('the daily token cap, in one process', () => {
  it('counts reported usage, streams included, and past the cap answers 429 without calling the provider', async () => {
    // The fake provider reports one token per word: "a b" and its 5-word reply make 7. Each request first reserves
    // what it may cost, then is settled to those 7: two fit, the third's reservation would pass the cap.
    const cap = reservation('a b') + 10;
    const { url, logs } = await start({ dailyTokenLimit: cap });
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
    expect(logs).toContain(`[llm-proxy] usage tokens=7 today=14/${cap}`);
  });

  it('keeps the whole reservation of a stream the visitor cut off', async () => {
    const cap = 2 * reservation('hi') - 1;
    const { url } = await start({ dailyTokenLimit: cap });
    // A finished stream is settled to its usage (7 tokens), which leaves room for one more reservation.
    expect(await (await postChat(url, chatBody('hi', { stream: true }))).text()).toContain('[DONE]');

    provider.respondWith({ openStream: true });
    const visitor = new AbortController();
    const cut = await postChat(url, chatBody('hi', { stream: true }), { signal: visitor.signal });
    await until(() => provider.streams.length === 1, 'the stream to open');
    provider.streams[0].piece('Half');
    await (cut.body as ReadableStream<Uint8Array>).getReader().read();
    visitor.abort();
    await until(() => provider.streams[0].closed, 'the upstream stream to be cut');

    provider.respondWith({ content: 'unused' });
    const next = await postChat(url, chatBody('hi'));
    expect(next.status).toBe(429);
    expect(provider.requests).toHaveLength(2);
  });

  it('reaches the cap with a provider that never reports usage, streamed or not', async () => {
    provider.respondWith({ json: NO_USAGE });
    const { url } = await start({ dailyTokenLimit: 2 * reservation('hi') });
    const plain = await postChat(url, chatBody('hi'));
    const streamed = await postChat(url, chatBody('hi', { stream: true }));
    await streamed.text();
    const third = await postChat(url, chatBody('hi'));

    expect([plain.status, streamed.status, third.status]).toEqual([200, 200, 429]);
    expect(provider.requests).toHaveLength(2);
  });

  it('admits a parallel burst only as far as its reservations fit under the cap', async () => {
    const cap = 2_000;
    const { url } = await start({ dailyTokenLimit: cap });
    const { admitted, statuses } = await parallelBurst(url, provider, 20, 'hello there');

    expect(admitted).toBe(Math.floor(cap / reservation('hello there')));
    expect(admitted).toBeLessThanOrEqual(8);
    expect(statuses.filter((status) => status === 200)).toHaveLength(admitted);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - admitted);
  });

  it("never forwards a message whose own reservation passes what is left of the day, and refuses it as the cap's", async () => {
    const { url } = await start({ dailyTokenLimit: 2_000 });
    const long = await postChat(url, chatBody('x'.repeat(3_000)));
    const short = await postChat(url, chatBody('hi'));

    expect(long.status).toBe(429);
    expect((await long.json()).error.code).toBe('daily_token_limit');
    expect(short.status).toBe(200);
    expect(provider.requests).toHaveLength(1);
  });

  it('gives the reservation back when the provider refuses the call, or cannot be reached at all', async () => {
    provider.queue({ status: 503 });
    const { url } = await start({ dailyTokenLimit: reservation('hi') + 10 });
    const unreachable = await start({
      dailyTokenLimit: reservation('hi') + 10,
      upstream: { kind: 'provider', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'test-token-unused', model: 'm' },
    });

    expect((await postChat(url, chatBody('hi'))).status).toBe(503);
    expect((await postChat(url, chatBody('hi'))).status).toBe(200);
    expect((await postChat(unreachable.url, chatBody('hi'))).status).toBe(502);
    expect((await postChat(unreachable.url, chatBody('hi'))).status).toBe(502);
    expect(unreachable.logs.filter((line) => line.includes(' 429 '))).toEqual([]);
  });
});
