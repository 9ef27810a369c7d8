import { describe, expect, it } from 'vitest';
import { chatBody, postChat, proxyHarness } from '../../testing/proxy-app.ts';

const { provider, start } = await proxyHarness();

describe('the per-minute rate limit', () => {
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
