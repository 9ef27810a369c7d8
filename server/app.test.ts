import { afterEach, describe, expect, it, vi } from 'vitest';
import { EMBED_HOST_PARAM } from '../contract/embed.ts';
import { CHAT_COMPLETIONS_PATH, PROXY_BASE_PATH } from '../contract/llm.ts';
import { chatBody, postChat, proxyHarness } from '../testing/proxy-app.ts';

const { provider, start } = await proxyHarness();

describe('the site around the chat route', () => {
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

  it('answers 403 to a request a browser marks as coming from another site', async () => {
    const { url } = await start();
    const response = await postChat(url, chatBody(), { headers: { 'sec-fetch-site': 'cross-site' } });
    const sameOrigin = await postChat(url, chatBody(), { headers: { 'sec-fetch-site': 'same-origin' } });

    expect(response.status).toBe(403);
    expect(sameOrigin.status).toBe(200);
    expect(provider.requests).toHaveLength(1);
  });

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

describe('a frame asked for by a host page that FRAME_ANCESTORS does not allow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is logged with the origin and the setting to change, at most once an hour per origin', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { url, logs } = await start({ security: { frameAncestors: ['https://www.example.com'], connectSrc: [] } });
    const frame = (host: string) => fetch(`${url}/?${EMBED_HOST_PARAM}=${encodeURIComponent(host)}`);
    const refusals = () => logs.filter((line) => line.includes('FRAME_ANCESTORS'));

    await frame('https://www.example.com');
    expect(refusals()).toEqual([]);
    await frame('https://shop.example.org');
    await frame('https://shop.example.org');
    expect(refusals()).toHaveLength(1);
    expect(refusals()[0]).toContain('https://shop.example.org');
    expect(refusals()[0]).toContain('add https://shop.example.org to FRAME_ANCESTORS');

    vi.setSystemTime(Date.now() + 59 * 60 * 1000);
    await frame('https://shop.example.org');
    expect(refusals()).toHaveLength(1);
    vi.setSystemTime(Date.now() + 60 * 1000);
    await frame('https://shop.example.org');
    expect(refusals()).toHaveLength(2);
  });
});
