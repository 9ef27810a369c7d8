import { describe, expect, it } from 'vitest';
import { chatBody, postChat, proxyHarness } from '../../testing/proxy-app.ts';
import { pathUnder, readBasePath } from './base-path.ts';

const { provider, start } = await proxyHarness();

describe('BASE_PATH', () => {
  it('takes a clean path, or nothing', () => {
    for (const value of ['', '/assistant', '/help/assistant', '/a.b', '/v1~x_y-z']) {
      const problems: string[] = [];
      expect(readBasePath({ BASE_PATH: value }, problems)).toBe(value);
      expect(problems).toEqual([]);
    }
    expect(readBasePath({}, [])).toBe('');
  });

  it('refuses anything else with one line that names it', () => {
    for (const value of ['assistant', '/assistant/', '/', '/a/../b', '/..', '/./a', '/a?x=1', '/a#b', '//a', '/a b']) {
      const problems: string[] = [];
      expect(readBasePath({ BASE_PATH: value }, problems)).toBe('');
      expect(problems, value).toEqual([
        `BASE_PATH must be a clean path such as /assistant: one leading slash, no trailing slash, no "." or ".." segment, no query (got "${value}")`,
      ]);
    }
  });

  it('gives the routes the path inside it, and them nothing outside it', () => {
    const path = pathUnder('/assistant');
    const at = (url: string) => path?.(new Request(`http://host${url}`));
    expect(at('/assistant')).toBe('/');
    expect(at('/assistant/')).toBe('/');
    expect(at('/assistant/embed.js?lang=de')).toBe('/embed.js');
    expect(at('/assistantx/embed.js')).not.toMatch(/^\/embed/);
    expect(at('/embed.js')).not.toBe('/embed.js');
    expect(pathUnder('')).toBeUndefined();
  });

  it('serves the health checks and the chat under it, and answers 404 outside it', async () => {
    const { url } = await start({ basePath: '/assistant' });

    const health = await fetch(`${url}/assistant/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/assistant/readyz`)).status).toBe(200);
    expect((await postChat(`${url}/assistant`, chatBody())).status).toBe(200);
    expect(provider.requests).toHaveLength(1);

    for (const outside of ['/healthz', '/readyz', '/', '/assistantx/healthz']) {
      expect((await fetch(url + outside)).status, outside).toBe(404);
    }
    expect((await postChat(url, chatBody())).status).toBe(404);
    expect(provider.requests).toHaveLength(1);
  });
});
