import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type KnowledgeSite,
  pagesOf,
  sitemapXml,
  sitePage,
  startKnowledgeSite,
} from '../../../testing/knowledge-site.ts';
import { LocationScanner } from './sitemap-scan.ts';
import { type CrawlLimits, readSitemap } from './sitemap-source.ts';

const LIMITS: CrawlLimits = {
  userAgent: 'AIAssistantBot',
  maxPages: 1000,
  maxPageBytes: 20_000,
  concurrency: 2,
  requestTimeoutMs: 10_000,
  slowAfterMs: 3_000,
  maxRedirects: 3,
  maxSitemaps: 10,
  extractTimeoutMs: 20_000,
  maxPageNodes: 50_000,
  extractHeapMb: 256,
  maxPageTerms: 25_000,
};

const article = (heading: string, text: string) =>
  `<h1>${heading}</h1><p>${text} ${'More words about the subject. '.repeat(20)}</p>`;

let site: KnowledgeSite;
let other: KnowledgeSite | undefined;
afterEach(async () => {
  await site?.close();
  await other?.close();
  other = undefined;
});

describe('a sitemap source', () => {
  it('fetches the pages of the sitemap’s origin that robots.txt allows, and nothing else', async () => {
    site = await startKnowledgeSite();
    other = await startKnowledgeSite({
      '/docs/foreign': { body: sitePage({ title: 'Foreign', body: article('F', 'Foreign.') }) },
    });
    const { origin } = site;
    const otherOrigin = other.origin;
    site.set('/robots.txt', {
      type: 'text/plain',
      body: 'User-agent: AIAssistantBot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n',
    });
    site.set('/sitemap.xml', {
      type: 'application/xml',
      body: sitemapXml([`${origin}/sitemap-pages.xml`, `${otherOrigin}/sitemap-foreign.xml`], true),
    });
    site.set('/sitemap-pages.xml', {
      type: 'application/xml',
      body: sitemapXml([
        `${origin}/docs/returns`,
        `${origin}/docs/returns#top`,
        `${origin}/private/secret`,
        `${origin}/moved`,
        `${origin}/away`,
        `${origin}/away-private`,
        `${otherOrigin}/docs/foreign`,
        `${origin}/ja/returns`,
        `${origin}/big`,
        `${origin}/logo.png`,
      ]),
    });
    site.set('/docs/returns', {
      body: sitePage({ title: 'Returns', body: article('Returns', 'Thirty days to return.') }),
    });
    site.set('/moved', { redirect: '/docs/shipping', status: 301 });
    site.set('/docs/shipping', {
      body: sitePage({
        title: 'Shipping',
        canonical: '/docs/shipping?ref=canonical',
        body: article('Shipping', 'Four euros.'),
      }),
    });
    site.set('/away', { redirect: `${otherOrigin}/docs/evil` });
    site.set('/away-private', { redirect: '/private/hidden' });
    site.set('/ja/returns', {
      body: sitePage({ title: '返品について', lang: 'ja', body: article('返品', '三十日以内であれば返品できます。') }),
    });
    site.set('/big', { body: sitePage({ title: 'Big', body: article('Big', 'x'.repeat(30_000)) }) });
    site.set('/logo.png', { type: 'image/png', body: 'PNG' });

    const log: string[] = [];
    const read = await readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, (line) => log.push(line));
    const pages = pagesOf(read);

    expect(pages.map(({ url, title, language }) => [url, title, language]).sort()).toEqual([
      [`${origin}/docs/returns`, 'Returns', 'en'],
      [`${origin}/docs/shipping`, 'Shipping', 'en'],
      [`${origin}/ja/returns`, '返品について', 'ja'],
    ]);
    expect(
      pages
        .find((page) => page.title === 'Returns')
        ?.sections.map((section) => section.text)
        .join(' '),
    ).not.toMatch(/Home|Gardening navigation|Copyright footer/);
    expect(other.requests).toEqual([]);
    const fetched = site.requests.map(({ path }) => path);
    expect(fetched).not.toContain('/private/secret');
    expect(fetched).not.toContain('/private/hidden');
    expect(fetched.filter((path) => path === '/docs/returns')).toHaveLength(1);
    expect(fetched).toEqual(
      expect.arrayContaining(['/robots.txt', '/sitemap.xml', '/sitemap-pages.xml', '/away', '/moved']),
    );
    expect(new Set(site.requests.map((request) => request.userAgent))).toEqual(new Set(['AIAssistantBot']));
    expect(log).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`${origin}/private/secret: robots.txt disallows ${origin}/private/secret`),
        expect.stringContaining(`${origin}/away: it leads to another origin`),
        expect.stringContaining(`${origin}/away-private: robots.txt disallows ${origin}/private/hidden`),
        expect.stringContaining(`${origin}/big: it is larger than 20000 bytes`),
        expect.stringContaining(`${origin}/logo.png: it is not HTML`),
        expect.stringContaining('lists 2 addresses outside'),
      ]),
    );
    expect(read.skipped).toEqual([{ address: `${otherOrigin}/docs/foreign`, reason: 'another origin' }]);
    expect(read.outcomes).toContainEqual({
      address: `${origin}/private/secret`,
      kind: 'skipped',
      reason: `robots.txt disallows ${origin}/private/secret`,
    });
  });

  it('stops at the page cap and fails when the sitemap or robots.txt cannot be read', async () => {
    site = await startKnowledgeSite();
    const { origin } = site;
    const paths = Array.from({ length: 6 }, (_, n) => `/p${n}`);
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml(paths.map((path) => `${origin}${path}`)) });
    for (const path of paths) site.set(path, { body: sitePage({ title: path, body: article(path, 'Text.') }) });
    const read = await readSitemap(`${origin}/sitemap.xml`, 'en', { ...LIMITS, maxPages: 4 }, () => {});
    expect(pagesOf(read)).toHaveLength(4);
    expect(read.skipped).toEqual([
      { address: `${origin}/p4`, reason: 'past max_pages (4)' },
      { address: `${origin}/p5`, reason: 'past max_pages (4)' },
    ]);
    expect(site.requests.filter(({ path }) => paths.includes(path))).toHaveLength(4);

    await expect(readSitemap(`${origin}/missing.xml`, 'en', LIMITS, () => {})).rejects.toThrow(
      /sitemap .* cannot be read/,
    );
    site.set('/robots.txt', { status: 503, type: 'text/plain', body: 'busy' });
    await expect(readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, () => {})).rejects.toThrow(
      /robots\.txt answered 503/,
    );
  });

  it('reads a gzipped child sitemap, and honours a Crawl-delay: one request at a time, that far apart', async () => {
    site = await startKnowledgeSite({
      '/robots.txt': { type: 'text/plain', body: 'User-agent: AIAssistantBot\nCrawl-delay: 0.3\n' },
    });
    const { origin } = site;
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${origin}/pages.xml.gz`], true) });
    const pages = ['/a', '/b', '/c'];
    site.set('/pages.xml.gz', {
      type: 'application/gzip',
      body: gzipSync(sitemapXml(pages.map((path) => `${origin}${path}`))),
    });
    for (const path of pages) site.set(path, { body: sitePage({ title: path, body: article(path, 'Text.') }) });
    const read = await readSitemap(`${origin}/sitemap.xml`, 'en', LIMITS, () => {});
    expect(
      pagesOf(read)
        .map((page) => page.title)
        .sort(),
    ).toEqual(pages);
    // When each request reached the site: the next is sent only after the delay that follows the last answer.
    const asked = site.requests.filter((request) => pages.includes(request.path)).map((request) => request.at);
    expect(asked).toHaveLength(3);
    expect(asked[1] - asked[0]).toBeGreaterThanOrEqual(290);
    expect(asked[2] - asked[1]).toBeGreaterThanOrEqual(290);
  });

  it('gives up on a request after its time limit', async () => {
    site = await startKnowledgeSite();
    const release = site.hold();
    await expect(
      readSitemap(`${site.origin}/sitemap.xml`, 'en', { ...LIMITS, requestTimeoutMs: 200 }, () => {}),
    ).rejects.toThrow();
    release();
  });
});

describe('sitemap XML', () => {
  it('reads <loc> entries, with entities and CDATA, and tells an index from a list of pages', () => {
    const scanner = new LocationScanner();
    expect(
      scanner.push(
        '<urlset><url><loc> https://a.example/?x=1&amp;y=2 </loc><lastmod>2026-11-01</lastmod></url><url><lastmod>soon</lastmod><loc><![CDATA[https://a.example/b]]></loc></url><url><lastmod>2026-10-01</lastmod><loc>https://a.example/c</loc></url></urlset>',
      ),
    ).toEqual([
      { location: 'https://a.example/?x=1&y=2', lastmod: Date.parse('2026-11-01') },
      { location: 'https://a.example/b' },
      { location: 'https://a.example/c', lastmod: Date.parse('2026-10-01') },
    ]);
    expect(scanner.index).toBe(false);
    const index = new LocationScanner();
    expect(index.push('<sitemapindex><sitemap><loc>https://a.example/s.xml</loc></sitemap></sitemapindex>')).toEqual([
      { location: 'https://a.example/s.xml' },
    ]);
    expect(index.index).toBe(true);
  });

  it('reads an entry cut between two pieces, and skips an unclosed one in time that grows with its size alone', () => {
    const scanner = new LocationScanner();
    expect(scanner.push('<urlset><url><loc>https://a.exa')).toEqual([]);
    expect(scanner.push('mple/one</lo')).toEqual([]);
    const entries = scanner.push('c><lastmod>2026-11-0');
    expect(entries).toEqual([{ location: 'https://a.example/one' }]);
    // The `<lastmod>` that follows an entry, cut in two, is set on it when its end arrives.
    const two = scanner.push('1</lastmod></url><loc>https://a.example/two</loc>');
    expect(two).toEqual([{ location: 'https://a.example/two' }]);
    expect(entries[0].lastmod).toBe(Date.parse('2026-11-01'));
    // The last entry's `<lastmod>` follows it at the end of the file: read when the file ends (it never was before).
    expect(scanner.push('<lastmod>2026-10-0')).toEqual([]);
    expect(scanner.end('2</lastmod></url></urlset>')).toEqual([]);
    expect(two[0].lastmod).toBe(Date.parse('2026-10-02'));
    // 2 MB of unclosed <loc> (a backtracking pattern took minutes on 1.9 MB), then one good entry.
    const hostile = `<urlset>${'<loc>'.repeat(400_000)}<loc>https://a.example/good</loc></urlset>`;
    const pieces = hostile.match(/[\s\S]{1,65536}/g) ?? [];
    const cut = new LocationScanner();
    const started = performance.now();
    expect(pieces.flatMap((piece) => cut.push(piece))).toEqual([{ location: 'https://a.example/good' }]);
    // A bound a busy machine meets many times over: the linear scan takes some milliseconds here.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
