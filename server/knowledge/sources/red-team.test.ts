import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type KnowledgeSite,
  pagesOf,
  sitemapXml,
  sitePage,
  startKnowledgeSite,
} from '../../../testing/knowledge-site.ts';
import { isInternal, type Resolve } from './site-address.ts';
import { type CrawlLimits, readSitemap } from './sitemap-source.ts';

// What held when a red-team pass attacked the crawler, kept so that it goes on holding: gzip bombs, XML and HTML
// entities, and every redirect or address towards another origin or an internal one (a canary site counts requests).

const LIMITS: CrawlLimits = {
  userAgent: 'AIAssistantBot',
  maxPages: 1000,
  maxPageBytes: 2_000_000,
  concurrency: 2,
  requestTimeoutMs: 10_000,
  slowAfterMs: 3_000,
  maxRedirects: 5,
  maxSitemaps: 10,
  extractTimeoutMs: 20_000,
  maxPageNodes: 50_000,
  extractHeapMb: 256,
  maxPageTerms: 25_000,
};

const good = sitePage({ title: 'Hours', body: `<h1>Hours</h1><p>${'The shop opens at nine. '.repeat(30)}</p>` });
const gzipped = (body: string) => ({ body: gzipSync(body), headers: { 'content-encoding': 'gzip' } });

let site: KnowledgeSite;
let canary: KnowledgeSite;
afterEach(async () => {
  await site?.close();
  await canary?.close();
});

describe('what a red team tried, and what holds', () => {
  it('stops a gzip bomb at the cap, for a page and for a sitemap', async () => {
    site = await startKnowledgeSite();
    const { origin } = site;
    // 51 MB of spaces in about 50 KB: past the sitemap format's 50 MB, read no further than that.
    const padded = sitemapXml([`${origin}/hours`, `${origin}/bomb`]).replace(
      '</urlset>',
      `${' '.repeat(51_000_000)}</urlset>`,
    );
    site.set('/sitemap.xml', { type: 'application/xml', ...gzipped(padded) });
    site.set('/hours', { body: good });
    site.set('/bomb', gzipped(`<html><body>${' '.repeat(10_000_000)}</body></html>`));
    const log: string[] = [];
    const pages = pagesOf(await readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, (line) => log.push(line)));
    expect(pages.map(({ url }) => url)).toEqual([`${origin}/hours`]);
    expect(log).toContainEqual(expect.stringContaining(`${origin}/bomb: it is larger than 2000000 bytes`));
  });

  it('expands no entity, in a sitemap or a page', async () => {
    site = await startKnowledgeSite();
    const { origin } = site;
    const laughs = Array.from({ length: 9 }, (_, n) => `<!ENTITY lol${n + 1} "${`&lol${n};`.repeat(10)}">`).join('');
    const doctype = `<!DOCTYPE lolz [<!ENTITY lol0 "lol">${laughs}]>`;
    site.set('/sitemap.xml', {
      type: 'application/xml',
      body: sitemapXml([`${origin}/hours`, `${origin}/laughs`])
        .replace('<urlset', `${doctype}<urlset`)
        .replace('</urlset>', '<url><loc>&lol9;</loc></url></urlset>'),
    });
    site.set('/hours', { body: good });
    site.set('/laughs', {
      body: `<!DOCTYPE html ${doctype.slice(15)}<html><body><h1>Laughs</h1><p>&lol9; ${'Words. '.repeat(40)}</p></body></html>`,
    });
    const pages = pagesOf(await readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, () => {}));
    const text = JSON.stringify(pages);
    expect(text).not.toContain('lollol');
    expect(text.length).toBeLessThan(100_000);
    expect(pages.map(({ url }) => url)).toContain(`${origin}/hours`);
  });

  it('fetches nothing from another origin or an internal address, however it is reached', async () => {
    site = await startKnowledgeSite();
    canary = await startKnowledgeSite({
      '/offer': { body: good },
      '/sitemap.xml': { type: 'application/xml', body: sitemapXml([]) },
    });
    const { origin } = site;
    const port = new URL(canary.origin).port;
    const elsewhere = [
      canary.origin,
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
      `http://0x7f000001:${port}`,
      `http://2130706433:${port}`,
    ];
    site.set('/robots.txt', { redirect: `${canary.origin}/robots.txt` });
    site.set('/sitemap.xml', {
      type: 'application/xml',
      body: sitemapXml([
        `${origin}/hours`,
        ...elsewhere.map((address) => `${address}/offer`),
        ...elsewhere.map((_, n) => `${origin}/go-${n}`),
      ]),
    });
    for (const [n, address] of elsewhere.entries()) site.set(`/go-${n}`, { redirect: `${address}/offer`, status: 307 });
    site.set('/hours', { body: good });
    // A robots.txt that leads elsewhere cannot be read: nothing at all is fetched this time.
    await expect(readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, () => {})).rejects.toThrow(
      /robots\.txt cannot be read: it leads to another origin/,
    );
    site.set('/robots.txt', { type: 'text/plain', body: '' });
    const log: string[] = [];
    const pages = pagesOf(await readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, (line) => log.push(line)));
    expect(canary.requests).toEqual([]);
    expect(pages.map(({ url }) => url)).toEqual([`${origin}/hours`]);
    expect(log.filter((line) => line.includes('it leads to another origin'))).toHaveLength(elsewhere.length);
  });

  it('reads a site only at the address its name first resolved to, when that is internal (DNS rebinding)', async () => {
    site = await startKnowledgeSite();
    const { port } = new URL(site.origin);
    // The same port on another loopback address: another host of the server's network, with its own pages.
    canary = await startKnowledgeSite(
      { '/hours': { body: sitePage({ title: 'Internal', body: `<p>${'Secret figures. '.repeat(40)}</p>` }) } },
      { host: '127.0.0.2', port: Number(port) },
    );
    const origin = `http://shop.test:${port}`;
    // Each answer closes its connection, so that every request resolves the name again.
    const closing = { headers: { connection: 'close' } };
    site.set('/robots.txt', { type: 'text/plain', body: '', ...closing });
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${origin}/hours`]), ...closing });
    site.set('/hours', { body: good, ...closing });
    const answers: Awaited<ReturnType<Resolve>>[] = [
      [{ address: '127.0.0.1', family: 4 }],
      [{ address: '127.0.0.1', family: 4 }],
      [
        { address: '::ffff:127.0.0.2', family: 6 },
        { address: '127.0.0.2', family: 4 },
      ],
    ];
    const asked: string[] = [];
    const resolve: Resolve = async (host) => {
      asked.push(host);
      return answers[Math.min(asked.length, answers.length) - 1];
    };
    const log: string[] = [];
    const read = await readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, (line) => log.push(line), { resolve });
    expect(asked).toEqual(['shop.test', 'shop.test', 'shop.test']);
    expect(canary.requests).toEqual([]);
    expect(pagesOf(read)).toEqual([]);
    expect(read.outcomes).toEqual([
      {
        address: `${origin}/hours`,
        kind: 'failed',
        reason: expect.stringContaining('resolves to ::ffff:127.0.0.2, 127.0.0.2, an internal address'),
      },
    ]);
    expect(site.requests.map(({ path }) => path)).toEqual(['/robots.txt', '/sitemap.xml']);
  });

  it('reads a site at every address its name first resolved to, as localhost resolves to ::1 and 127.0.0.1', async () => {
    site = await startKnowledgeSite();
    const origin = `http://shop.test:${new URL(site.origin).port}`;
    site.set('/robots.txt', { type: 'text/plain', body: '' });
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${origin}/hours`]) });
    site.set('/hours', { body: good });
    // The site listens on 127.0.0.1 only: the connection goes on to it when ::1 refuses.
    const resolve: Resolve = async () => [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    const read = await readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, () => {}, { resolve });
    expect(pagesOf(read).map(({ url }) => url)).toEqual([`${origin}/hours`]);
  });

  it('tells internal addresses from public ones, IPv4 mapped into IPv6 included', () => {
    const internal = ['127.0.0.2', '10.1.2.3', '172.31.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0'];
    const internal6 = ['::1', '::', 'fd12:3456::1', 'fc00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe'];
    const outside = ['93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:93.184.216.34'];
    expect([...internal, ...internal6].filter((address) => !isInternal(address))).toEqual([]);
    expect(outside.filter(isInternal)).toEqual([]);
  });
});
