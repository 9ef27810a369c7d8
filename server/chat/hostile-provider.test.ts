import { describe, expect, it } from 'vitest';
import { MAX_TOKENS } from '../../contract/llm.ts';
import { PROVIDER_SECRET } from '../../testing/fake-provider.ts';
import { chatBody, postChat, proxyHarness, until } from '../../testing/proxy-app.ts';
import { TEMPLATE_TOKENS } from './chat-request.ts';

const { provider, start } = await proxyHarness();

/** The end of every stream that went wrong, in the project's words. */
const BROKE_OFF = 'data: {"error":{"message":"The language model stream broke off.","type":"upstream_error"}}';

/** What reaches the visitor, headers and body, as one text to search. */
async function received(response: Response): Promise<string> {
  return `${[...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n${await response.text()}`;
}

/** The data of each event of a relayed stream, parsed (`[DONE]` as is). */
const eventsOf = (stream: string) =>
  stream
    .trim()
    .split('\n\n')
    .map((event) => {
      expect(event).toMatch(/^data: /);
      const data = event.slice('data: '.length);
      return data === '[DONE]' ? data : JSON.parse(data);
    });

describe('a provider that adds what is not the reply', () => {
  it('streams only each chunk’s role, content and finish reason: no comment, vendor event, field or header', async () => {
    provider.respondWith({ hostile: ['Hel', 'lo'] });
    const { url } = await start();
    const response = await postChat(url, chatBody('hi', { stream: true }));
    const headers = [...response.headers.keys()];
    const events = eventsOf(await response.text());

    expect(headers).not.toContain('x-vendor-account');
    expect(headers).not.toContain('openai-organization');
    expect(events).toEqual([
      { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] },
      { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] },
      { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] },
      { object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      '[DONE]',
    ]);
  });

  it('answers a whole reply with only its choices and usage, and none of the provider’s headers', async () => {
    provider.respondWith({ hostile: ['Hello ', 'there'] });
    const { url } = await start();
    const response = await postChat(url, chatBody('hi'));
    const text = await received(response.clone());

    expect(text).not.toContain(PROVIDER_SECRET);
    expect(await response.json()).toEqual({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
  });
});

describe("a provider's own words about a failure", () => {
  it.each([
    ['mid-stream', ['Half ', 'a reply']],
    ['before any content', []],
  ])(
    'an error event %s becomes the generic broken-stream event; only its type and code are logged',
    async (_, pieces) => {
      provider.respondWith({ hostile: pieces, ending: 'error' });
      const { url, logs } = await start();
      const text = await received(await postChat(url, chatBody('hi', { stream: true })));

      expect(text).not.toContain(PROVIDER_SECRET);
      expect(text).not.toContain('Rate limit');
      for (const piece of pieces) expect(text).toContain(JSON.stringify(piece));
      expect(text.trim().endsWith(BROKE_OFF)).toBe(true);
      expect(logs.join('\n')).toContain('error event (type=server_error code=rate_limit_exceeded)');
      expect(logs.join('\n')).not.toContain(PROVIDER_SECRET);
    },
  );

  it('an error in a whole reply, or an error status, becomes a generic error; only its type and code are logged', async () => {
    const { url, logs } = await start();
    provider.respondWith({ json: { error: { message: `Quota for ${PROVIDER_SECRET}`, type: 'quota', code: 7 } } });
    const inBody = await postChat(url, chatBody('hi'));
    provider.respondWith({ status: 429 });
    const asStatus = await postChat(url, chatBody('hi'));

    expect(inBody.status).toBe(502);
    expect(await inBody.json()).toEqual({
      error: { message: 'The language model provider failed.', type: 'api_error', code: 'upstream_error' },
    });
    expect(asStatus.status).toBe(429);
    expect(await asStatus.text()).not.toContain('fake provider error');
    expect(logs.join('\n')).toContain('upstream-error type=quota code=7');
    expect(logs.join('\n')).toContain('upstream-status=429 type=fake code=-');
    expect(logs.join('\n')).not.toMatch(/fake-key-PROVIDER|fake provider error/);
  });
});

describe('a reply past its bounds', () => {
  it('cuts a stream past 256 KiB as a broken stream, whose reservation under the cap stands', async () => {
    // 3,000 pieces of 100 characters: each a small event, the whole text well over the bound.
    provider.respondWith({ stream: Array.from({ length: 3_000 }, () => 'x'.repeat(100)) });
    const reservation = Buffer.byteLength('hi') + TEMPLATE_TOKENS + MAX_TOKENS;
    const { url, logs } = await start({ dailyTokenLimit: 2 * reservation - 1 });
    const text = await (await postChat(url, chatBody('hi', { stream: true }))).text();

    expect(text.trim().endsWith(BROKE_OFF)).toBe(true);
    const passedOn = [...text.matchAll(/"content":"(x*)"/g)].reduce((sum, [, content]) => sum + content.length, 0);
    expect(passedOn).toBeGreaterThan(200 * 1024);
    expect(passedOn).toBeLessThanOrEqual(256 * 1024);
    expect(logs.join('\n')).toContain('broke off (reply over 262144 bytes)');
    // The cut reply reported no usage: its whole reservation is still counted, and the next one does not fit.
    expect((await postChat(url, chatBody('hi'))).status).toBe(429);
  });

  it('reads a whole reply only up to 256 KiB', async () => {
    provider.respondWith({ flood: 8 * 1024 * 1024 });
    const { url, logs } = await start();
    const response = await postChat(url, chatBody('hi'));

    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe('upstream_invalid');
    expect(logs.join('\n')).toContain('invalid: reply over 262144 bytes');
    await until(() => provider.requests[0].aborted, 'the upstream request to be abandoned');
  });

  it('cuts a flood of one endless event, while /healthz answers quickly and memory stays bounded', async () => {
    // Each flood offers 32 MiB in one event that never ends; four visitors meet one flood after another for about two
    // seconds, while the health check is asked every 20 ms. Timed by the clock, not by a count: a slow machine runs fewer.
    provider.respondWith({ flood: 32 * 1024 * 1024 });
    const { url, logs } = await start();
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const latencies: number[] = [];
    const deadline = Date.now() + 2_000;
    let floods = 0;
    // Four visitors at once, each meeting one flood after another.
    const flooding = Array.from({ length: 4 }, async () => {
      while (Date.now() < deadline) {
        const text = await (await postChat(url, chatBody('hi', { stream: true }))).text();
        expect(text.trim()).toBe(BROKE_OFF);
        floods += 1;
      }
    });
    while (Date.now() < deadline) {
      const asked = performance.now();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      latencies.push(performance.now() - asked);
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(flooding);

    latencies.sort((a, b) => a - b);
    // The 90th percentile: one answer delayed by another process on a busy machine says nothing about this server.
    const p90 = latencies[Math.floor(latencies.length * 0.9)];
    expect(floods).toBeGreaterThan(0);
    expect(p90, `health checks took ${latencies.map(Math.round).join(', ')} ms`).toBeLessThan(300);
    expect((rssPeak - rssBefore) / 2 ** 20).toBeLessThan(150);
    expect(logs.join('\n')).toContain(`broke off (event over ${64 * 1024} bytes)`);
    await until(() => provider.requests.every((request) => request.aborted), 'every flood to be abandoned');
  });
});
