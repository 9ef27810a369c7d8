// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { chatBody, postChat, proxyHarness } from '../testing/proxy-app.ts';

const { provider, start } = await proxyHarness();

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
