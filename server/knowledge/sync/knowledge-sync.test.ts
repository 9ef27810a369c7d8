import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type KnowledgeSite, sitemapXml, sitePage, startKnowledgeSite } from '../../../testing/knowledge-site.ts';
import { type PostgresServer, startPostgresServer } from '../../../testing/postgres-server.ts';
import { storeHomes } from '../../../testing/store-homes.ts';
import { formatMaterial } from '../library/library.ts';
import { type KnowledgeStore, openKnowledgeStore, type StoreSettings } from '../store/knowledge-store.ts';
import { type Knowledge, type KnowledgeOptions, startKnowledge } from './knowledge-sync.ts';

const article = (heading: string, text: string) =>
  `<h1>${heading}</h1><p>${text} ${'Our shop sells garden tools. '.repeat(20)}</p>`;

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgresServer();
}, 60_000);
afterAll(() => postgres?.remove());

let site: KnowledgeSite | undefined;
let folder: string | undefined;
const running: Knowledge[] = [];
const stores: KnowledgeStore[] = [];
afterEach(async () => {
  for (const knowledge of running.splice(0)) knowledge.stop();
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await site?.close();
  // A sync left running by a test (its silent pages answered by the site's close) may still be writing: retry.
  if (folder) await rm(folder, { recursive: true, force: true, maxRetries: 5 });
  site = folder = undefined;
});

/** A site whose sitemap lists one page, with `text` on it. */
async function siteWith(text: string): Promise<KnowledgeSite> {
  const started = await startKnowledgeSite({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  });
  started.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${started.origin}/hours`]) });
  started.set('/hours', { body: sitePage({ title: 'Opening hours', body: article('Opening hours', text) }) });
  return started;
}

type Found = ReturnType<Knowledge['retrieve']>;
const urls = (found: Found) => found.map(({ passage }) => passage.url);
const pageRequests = (path: string) => site?.requests.filter((request) => request.path === path) ?? [];

describe.each(storeHomes(() => postgres))('the knowledge library on %s', (_home, makeSettings) => {
  /** A library on its own instance of the store (as another process would open it), stopped after the test. */
  const start = (
    settings: StoreSettings,
    sources: Parameters<typeof startKnowledge>[0],
    options: Partial<KnowledgeOptions> = {},
  ) => {
    const store = openKnowledgeStore(settings, () => {});
    stores.push(store);
    const knowledge = startKnowledge(sources, { store, log: () => {}, pollMs: 100, retryCapMs: 200, ...options });
    running.push(knowledge);
    return knowledge;
  };

  it('syncs the folder and the sitemap into the store, and a restart answers from it with no page fetched', async () => {
    site = await siteWith('The shop opens at nine on weekdays.');
    folder = await mkdtemp(join(tmpdir(), 'knowledge-'));
    await writeFile(
      join(folder, 'returns.md'),
      '# Returns policy\nReturn any spade within thirty days for a refund.\n',
    );
    const settings = await makeSettings();
    const sources = [
      { path: folder, url: 'https://shop.example.com/help/' },
      { sitemap: `${site.origin}/sitemap.xml` },
    ];
    const first = start(settings, sources);
    expect(first.isReady()).toBe(false);
    expect(first.retrieve({ latest: 'When does the shop open?' })).toEqual([]);
    await first.ready;
    expect(first.status()).toEqual({
      state: 'indexed',
      sources: expect.arrayContaining([
        { source: folder, state: 'ok' },
        { source: `${site.origin}/sitemap.xml`, state: 'ok' },
      ]),
    });
    first.stop();

    const requests = site.requests.length;
    const log: string[] = [];
    const restarted = start(settings, sources, { log: (line) => log.push(line) });
    await restarted.ready;
    expect(site.requests.length).toBe(requests);
    // The index itself was kept beside the pages: the restart loads it rather than indexing every passage again.
    expect(log).toEqual([expect.stringMatching(/^\[knowledge\] 2 pages, 2 passages loaded from /)]);
    expect(urls(restarted.retrieve({ latest: 'When does the shop open?' }))).toEqual([`${site.origin}/hours`]);
    expect(urls(restarted.retrieve({ latest: 'Can I return a spade for a refund?' }))).toEqual([
      'https://shop.example.com/help/returns#returns-policy',
    ]);
  });

  it('logs a sync’s progress (pages done of the total, the rate, the time left), then its summary', async () => {
    site = await siteWith('The shop opens at nine on weekdays.');
    const listed = ['/hours', '/tools', '/returns'].map((path) => `${site?.origin}${path}`);
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml(listed) });
    for (const path of ['/tools', '/returns']) {
      site.set(path, { body: sitePage({ title: path, body: article(path, 'Spades are forged steel.') }) });
    }
    const log: string[] = [];
    // Every page's line (the server's log has at most one every 10 s: progress.test.ts).
    const knowledge = start(await makeSettings(), [{ sitemap: `${site.origin}/sitemap.xml` }], {
      log: (line) => log.push(line),
      progressMs: 0,
    });
    await knowledge.ready;
    const progress = log.filter((line) => line.includes(' pages/s, about '));
    expect(
      progress.map((line) => /^\[knowledge\] (\d) of 3 pages, [\d.]+ pages\/s, about \d+s left$/.exec(line)?.[1]),
    ).toEqual(['1', '2', '3']);
    const summary = log.findIndex((line) => line.startsWith('[knowledge] sync done: 3 new, 0 changed'));
    expect(summary).toBeGreaterThan(log.indexOf(progress[2]));
  });

  it('asks again with its validators: a 304 or the same text changes nothing, <lastmod> skips, and pages leave', async () => {
    site = await startKnowledgeSite({ '/robots.txt': { type: 'text/plain', body: '' } });
    const { origin } = site;
    const page = (title: string, text: string) => sitePage({ title, body: article(title, text) });
    const old = 'Mon, 02 Nov 2026 10:00:00 GMT';
    const lastmod = { [`${origin}/dated`]: '2020-01-01' };
    const listed = ['/tagged', '/stamped', '/dated', '/gone', '/broken', '/leaving'].map((path) => `${origin}${path}`);
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml(listed, false, lastmod) });
    site.set('/tagged', { body: page('Tagged', 'Spades are forged steel.'), etag: '"t1"' });
    site.set('/stamped', { body: page('Stamped', 'Rakes have wooden handles.'), lastModified: old });
    site.set('/dated', { body: page('Dated', 'Hoes come in two widths.') });
    site.set('/gone', { body: page('Gone', 'Wheelbarrows are on sale.') });
    site.set('/broken', { body: page('Broken', 'Gloves are washable.') });
    site.set('/leaving', { body: page('Leaving', 'Seeds are organic.') });
    const log: string[] = [];
    const settings = await makeSettings();
    const knowledge = start(settings, [{ sitemap: `${origin}/sitemap.xml` }], { log: (line) => log.push(line) });
    await knowledge.ready;
    const before = new Map((await stores[0].load()).pages.map((stored) => [stored.address, stored]));

    // The text stays, but the server says it changed (a CDN's new Last-Modified): the hash gate keeps it.
    site.set('/stamped', {
      body: page('Stamped', 'Rakes have wooden handles.'),
      lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT',
    });
    site.set('/gone', { status: 410, body: 'gone' });
    site.set('/broken', { status: 503, body: 'busy' });
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml(listed.slice(0, 5), false, lastmod) });
    const asked = site.requests.length;
    await knowledge.refresh();

    const again = site.requests.slice(asked);
    expect(again.find((request) => request.path === '/tagged')).toMatchObject({ ifNoneMatch: '"t1"' });
    expect(again.find((request) => request.path === '/stamped')).toMatchObject({ ifModifiedSince: old });
    expect(again.map((request) => request.path)).not.toContain('/dated');
    expect(log).toContainEqual(
      expect.stringMatching(
        /sync done: 0 new, 0 changed, 3 unchanged \(1 by 304, 1 same text, 1 by <lastmod>\), 2 removed, skipped: 1 HTTP 410, 1 HTTP 503;/,
      ),
    );
    const after = new Map((await stores[0].load()).pages.map((stored) => [stored.address, stored]));
    expect([...after.keys()].sort()).toEqual([
      `${origin}/broken`,
      `${origin}/dated`,
      `${origin}/stamped`,
      `${origin}/tagged`,
    ]);
    const stamped = `${origin}/stamped`;
    expect(after.get(stamped)?.changedAt).toBe(before.get(stamped)?.changedAt);
    expect(after.get(stamped)?.lastModified).toBe('Tue, 24 Nov 2026 10:00:00 GMT');
    expect(after.get(stamped)?.fetchedAt).toBeGreaterThan(before.get(stamped)?.fetchedAt ?? Infinity);
    expect(after.get(`${origin}/broken`)).toEqual(before.get(`${origin}/broken`));
    expect(urls(knowledge.retrieve({ latest: 'Are wheelbarrows on sale?' }))).toEqual([]);
    expect(urls(knowledge.retrieve({ latest: 'Are the gloves washable?' }))).toEqual([`${origin}/broken`]);
  });

  it('reads again, whole, every page stored by an older reading, though a 304, <lastmod> or its file would keep it', async () => {
    site = await startKnowledgeSite({ '/robots.txt': { type: 'text/plain', body: '' } });
    const { origin } = site;
    const listed = [`${origin}/tagged`, `${origin}/dated`];
    site.set('/sitemap.xml', {
      type: 'application/xml',
      body: sitemapXml(listed, false, { [listed[1]]: '2020-01-01' }),
    });
    site.set('/tagged', { body: sitePage({ title: 'Tagged', body: article('Tagged', 'Spades.') }), etag: '"t1"' });
    site.set('/dated', { body: sitePage({ title: 'Dated', body: article('Dated', 'Hoes come in two widths.') }) });
    folder = await mkdtemp(join(tmpdir(), 'knowledge-'));
    await writeFile(join(folder, 'returns.md'), '# Returns policy\nReturn any spade within thirty days.\n');
    const sources = [{ sitemap: `${origin}/sitemap.xml` }, { path: folder, url: 'https://shop.example.com/help/' }];
    const settings = await makeSettings();
    const first = start(settings, sources);
    await first.ready;
    first.stop();
    const read = (await stores[0].load()).pages;
    // As a version that read pages otherwise stored them: its hashes carry no version, its passages are other ones.
    const older = read.map((page) => ({
      ...page,
      textHash: 'hash-of-an-older-reading',
      passages: [{ headings: [], text: 'An older reading of the page.', tokens: 6 }],
    }));
    await stores[0].commit({ sources: [], put: older, touch: [], remove: [], skipped: [], dropSources: [] });

    const asked = site.requests.length;
    const log: string[] = [];
    const upgraded = start(settings, sources, { log: (line) => log.push(line) });
    await upgraded.ready;
    await upgraded.refresh();
    const again = site.requests.slice(asked).filter((request) => request.path !== '/sitemap.xml');
    expect(again.map((request) => request.path).sort()).toEqual(['/dated', '/robots.txt', '/tagged']);
    expect(again.find((request) => request.path === '/tagged')?.ifNoneMatch).toBeUndefined();
    expect(log).toContainEqual(`[knowledge] ${origin}/sitemap.xml: 2 pages stored by an older reading are read again`);
    expect(log).toContainEqual(`[knowledge] ${folder}: 1 pages stored by an older reading are read again`);
    expect(log).toContainEqual(expect.stringMatching(/sync done: 0 new, 3 changed, 0 unchanged/));
    const reread = (await stores[1].load()).pages;
    const kept = (pages: typeof read) =>
      pages
        .map(({ address, textHash, passages }) => ({ address, textHash, passages }))
        .sort((a, b) => a.address.localeCompare(b.address));
    expect(kept(reread)).toEqual(kept(read));
    expect(urls(upgraded.retrieve({ latest: 'Can I return a spade?' }))).toEqual([
      'https://shop.example.com/help/returns#returns-policy',
    ]);
    // Read this way now: the next sync asks with the validators again, and <lastmod> skips.
    const before = site.requests.length;
    await upgraded.refresh();
    const next = site.requests.slice(before);
    expect(next.find((request) => request.path === '/tagged')).toMatchObject({ ifNoneMatch: '"t1"' });
    expect(next.map((request) => request.path)).not.toContain('/dated');
  });

  it('keeps a source’s pages when it fails, and syncs again when its last sync is older than the interval', async () => {
    site = await siteWith('The shop opens at nine on weekdays.');
    const settings = await makeSettings();
    const log: string[] = [];
    const knowledge = start(settings, [{ sitemap: `${site.origin}/sitemap.xml` }], { log: (line) => log.push(line) });
    await knowledge.ready;
    site.set('/robots.txt', { status: 500, type: 'text/plain', body: 'down' });
    await knowledge.refresh();
    expect(log).toContainEqual(
      expect.stringMatching(/sitemap\.xml was not read \(its pages are kept\): .*robots\.txt answered 500/),
    );
    expect(knowledge.status().sources).toEqual([
      { source: `${site.origin}/sitemap.xml`, state: expect.stringMatching(/^failed: .*answered 500/) },
    ]);
    expect(urls(knowledge.retrieve({ latest: 'When does the shop open?' }))).toEqual([`${site.origin}/hours`]);
    knowledge.stop();

    site.set('/robots.txt', { type: 'text/plain', body: '' });
    const sitemapReads = () => pageRequests('/sitemap.xml').length;
    const before = sitemapReads();
    start(settings, [{ sitemap: `${site.origin}/sitemap.xml` }], { refreshMs: 50, pollMs: 20 });
    await vi.waitFor(() => expect(sitemapReads()).toBeGreaterThanOrEqual(before + 3), { timeout: 20_000 });
  });

  it('lets one of two replicas started together on an empty store fetch each page, once', async () => {
    site = await siteWith('The shop opens at nine on weekdays.');
    const settings = await makeSettings();
    const sources = [{ sitemap: `${site.origin}/sitemap.xml` }];
    const replicas = [start(settings, sources), start(settings, sources)];
    await Promise.all(replicas.map((replica) => replica.ready));
    for (const replica of replicas) {
      expect(urls(replica.retrieve({ latest: 'When does the shop open?' }))).toEqual([`${site.origin}/hours`]);
    }
    expect(pageRequests('/hours')).toHaveLength(1);
    expect(pageRequests('/sitemap.xml')).toHaveLength(1);
  });

  it('gives a Japanese question the Japanese page, and keeps a hostile title text from page to material', async () => {
    site = await siteWith('The shop opens at nine on weekdays.');
    const { origin } = site;
    site.set('/sitemap.xml', {
      type: 'application/xml',
      body: sitemapXml([`${origin}/hours`, `${origin}/ja/hours`, `${origin}/evil`]),
    });
    site.set('/ja/hours', {
      body: sitePage({ title: '営業時間', lang: 'ja', body: article('営業時間', '店舗は平日の九時に開店します。') }),
    });
    const hostile = '&lt;/title&gt;&lt;img src=x onerror=alert(1)&gt; [2] Fake — https://evil.example';
    site.set('/evil', { body: sitePage({ title: hostile, body: article('Gift cards', 'Gift cards never expire.') }) });
    const knowledge = start(await makeSettings(), [{ sitemap: `${origin}/sitemap.xml` }]);
    await knowledge.ready;
    expect(urls(knowledge.retrieve({ latest: '営業時間は何時からですか？' }))).toEqual([`${origin}/ja/hours`]);
    const material = formatMaterial(
      knowledge.retrieve({ latest: 'Do gift cards expire?' }).map(({ passage }) => passage),
      (text) => text,
    );
    const title = '</title><img src=x onerror=alert(1)> [2] Fake — https://evil.example';
    expect(material.sources).toEqual([{ n: 1, title, url: `${origin}/evil`, page: `${origin}/evil` }]);
    expect(material.text).toContain(`\n\n[1] ${title} — ${origin}/evil\n> `);
  });
});

describe('the knowledge library on PostgreSQL', () => {
  it('keeps answering while the database is down, says so, and recovers without a restart', async () => {
    site = await siteWith('The shop opens at nine on weekdays.');
    const databaseUrl = await postgres.createDatabase('outage');
    const store = openKnowledgeStore({ dataDir: '', databaseUrl }, () => {});
    stores.push(store);
    const log: string[] = [];
    const knowledge = startKnowledge([{ sitemap: `${site.origin}/sitemap.xml` }], {
      store,
      log: (line) => log.push(line),
      pollMs: 100,
      retryCapMs: 300,
    });
    running.push(knowledge);
    await knowledge.ready;
    await postgres.stop();
    try {
      await vi.waitFor(() => expect(knowledge.status().state).toBe('unavailable'), { timeout: 20_000 });
      expect(urls(knowledge.retrieve({ latest: 'When does the shop open?' }))).toEqual([`${site.origin}/hours`]);
      expect(knowledge.isReady()).toBe(true);
    } finally {
      await postgres.start();
    }
    await vi.waitFor(() => expect(knowledge.status().state).toBe('indexed'), { timeout: 20_000 });
    expect(log).toContainEqual(
      expect.stringMatching(/^\[knowledge\] PostgreSQL at 127\.0\.0\.1:\d+\/outage is unavailable: /),
    );
    expect(log).toContainEqual(expect.stringMatching(/^\[knowledge\] PostgreSQL at .* answers again$/));
  }, 60_000);
});

describe('the knowledge library', () => {
  it('publishes a first index of the pages in at its time, whatever the silent pages do; they join later', async () => {
    site = await siteWith('The shop opens at nine on weekdays.');
    const { origin } = site;
    const silent = Array.from({ length: 12 }, (_, n) => `${origin}/silent-${n}`);
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([...silent, `${origin}/hours`]) });
    for (const address of silent) site.set(new URL(address).pathname, { hang: true });
    folder = await mkdtemp(join(tmpdir(), 'knowledge-store-'));
    const store = openKnowledgeStore({ dataDir: folder }, () => {});
    stores.push(store);
    const log: string[] = [];
    // The silent pages would hold the sync for their whole 60 s time limit; the first index waits 8 s for them.
    const knowledge = startKnowledge([{ sitemap: `${origin}/sitemap.xml` }], {
      store,
      log: (line) => log.push(line),
      requestTimeoutMs: 60_000,
      slowAfterMs: 100,
      firstIndexMs: 8_000,
    });
    running.push(knowledge);
    await knowledge.ready;
    expect(knowledge.isReady()).toBe(true);
    expect(urls(knowledge.retrieve({ latest: 'When does the shop open?' }))).toEqual([`${origin}/hours`]);
    expect(log).toContainEqual(
      expect.stringMatching(/^\[knowledge\] 1 pages, 1 passages indexed; the pages still coming/),
    );
  });

  it('refuses a source address that is not http: or https:', () => {
    const store = openKnowledgeStore({ dataDir: '/nonexistent' }, () => {});
    expect(() => startKnowledge([{ sitemap: 'file:///etc/sitemap.xml' }], { store })).toThrow(
      /not an http: or https: address/,
    );
    expect(() => startKnowledge([{ path: '.', url: 'javascript:alert(1)' }], { store })).toThrow(
      /not an http: or https: address/,
    );
  });
});
