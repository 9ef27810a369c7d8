import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { knowledgeCommand } from '../../testing/knowledge-command.ts';
import { type KnowledgeSite, sitemapXml, sitePage, startKnowledgeSite } from '../../testing/knowledge-site.ts';
import { type PostgresServer, startPostgresServer } from '../../testing/postgres-server.ts';
import { storeHomes } from '../../testing/store-homes.ts';
import { openKnowledgeStore, type StoreSettings, startKnowledge } from '../knowledge/knowledge.ts';

let postgres: PostgresServer;
let site: KnowledgeSite;
let dir: string;
const PATHS = ['/tools', '/hours', '/returns'];
const page = (path: string, text: string) =>
  sitePage({
    title: path.slice(1),
    body: `<h1>${path}</h1><p>${text} ${'Garden tools for every season. '.repeat(20)}</p>`,
  });

beforeAll(async () => {
  postgres = await startPostgresServer();
  site = await startKnowledgeSite({ '/robots.txt': { type: 'text/plain', body: '' } });
  site.set('/sitemap.xml', {
    type: 'application/xml',
    body: sitemapXml([...PATHS, '/missing'].map((path) => `${site.origin}${path}`)),
  });
  for (const path of PATHS) site.set(path, { body: page(path, `The first text of ${path}.`) });
  dir = await mkdtemp(join(tmpdir(), 'knowledge-cli-'));
  await writeFile(join(dir, 'assistant.config.yaml'), `knowledge:\n  - sitemap: ${site.origin}/sitemap.xml\n`);
}, 60_000);
afterAll(async () => {
  await site?.close();
  await postgres?.remove();
  await rm(dir, { recursive: true, force: true });
});

/** `npm run knowledge -- <args>` with this test's site file (see testing/knowledge-command.ts). */
const knowledge = (...[args, settings, options]: KnowledgeArgs) => knowledgeCommand(dir, args, settings, options);
type KnowledgeArgs = [string[], Parameters<typeof knowledgeCommand>[2], Parameters<typeof knowledgeCommand>[3]?];

describe.each(storeHomes(() => postgres))('npm run knowledge on %s', (_home, makeSettings) => {
  it('syncs with a summary, reports what the store holds, and a sync killed half-way leaves the store whole', async () => {
    const settings = await makeSettings();
    const synced = await knowledge(['sync'], settings).done;
    expect(synced.stderr).toBe('');
    expect(synced.code).toBe(0);
    expect(synced.stdout).toMatch(
      /\[knowledge\] sync done: 3 new, 0 changed, 0 unchanged \(0 by 304, 0 same text, 0 by <lastmod>\), 0 removed, skipped: 1 HTTP 404; [\d.]+ MB fetched in [\d.]+ s/,
    );

    const report = await knowledge(['report', '--json'], settings).done;
    expect(report.code).toBe(0);
    const [source] = JSON.parse(report.stdout).sources;
    expect(source).toMatchObject({ source: `${site.origin}/sitemap.xml`, state: 'ok', configured: true });
    expect(source.pages.map((stored: { url: string }) => stored.url).sort()).toEqual(
      PATHS.map((path) => `${site.origin}${path}`).sort(),
    );
    expect(source.pages[0]).toEqual({
      url: expect.any(String),
      title: expect.any(String),
      passages: 1,
      fetchedAt: expect.stringMatching(/^\d{4}-/),
      changedAt: expect.stringMatching(/^\d{4}-/),
      indexed: true,
    });
    expect(source.notTaken).toEqual([{ url: `${site.origin}/missing`, reason: 'it answered 404' }]);
    const text = await knowledge(['report'], settings).done;
    expect(text.stdout).toContain(`not taken: ${site.origin}/missing: it answered 404`);

    const store = openKnowledgeStore(settings as StoreSettings, () => {});
    try {
      const before = await store.load();
      for (const path of PATHS) site.set(path, { body: page(path, `The second text of ${path}.`) });
      // Two pages answer, the third is held: the sync is killed with two pages read and none written.
      const held = site.requests.length;
      const release = site.hold([PATHS[2]]);
      const killed = knowledge(['sync'], settings);
      try {
        await vi.waitFor(() => expect(site.requests.slice(held).map((request) => request.path)).toContain(PATHS[2]), {
          timeout: 20_000,
        });
        killed.child.kill('SIGKILL');
        expect((await killed.done).code).toBe(null);
      } finally {
        release();
      }
      expect(await store.load()).toEqual(before);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe.each(storeHomes(() => postgres))('a running library on %s', (_home, makeSettings) => {
  it('answers from a sync that `npm run knowledge -- sync` made in another process (which printed its progress), without a restart', async () => {
    for (const path of PATHS) site.set(path, { body: page(path, `The first text of ${path}.`) });
    const settings = await makeSettings();
    const store = openKnowledgeStore(settings as StoreSettings, () => {});
    // The library polls the store's generation (every 60 s by default, 200 ms here) and syncs only after 24 hours.
    const log: string[] = [];
    const library = startKnowledge([{ sitemap: `${site.origin}/sitemap.xml` }], {
      store,
      log: (line) => log.push(line),
      pollMs: 200,
    });
    const found = (question: string) => library.retrieve({ latest: question }).map(({ passage }) => passage.text);
    try {
      await library.ready;
      expect(found('Where is the blue wheelbarrow kept?').join()).not.toContain('wheelbarrow');
      site.set('/hours', { body: page('/hours', 'The blue wheelbarrow is kept behind the greenhouse.') });
      const fetched = site.requests.length;
      // One page answers 2.5 s after it is asked, past the command's 2 s between progress lines: a line says how the
      // sync goes when it is done.
      const release = site.hold(['/hours']);
      const child = knowledge(['sync'], settings);
      try {
        await vi.waitFor(
          () => expect(site.requests.slice(fetched).map((request) => request.path)).toContain('/hours'),
          {
            timeout: 20_000,
          },
        );
        await new Promise((resolve) => setTimeout(resolve, 2500));
      } finally {
        release();
      }
      const synced = await child.done;
      expect(synced.code).toBe(0);
      expect(synced.stdout).toMatch(/\n\[knowledge\] [1-4] of 4 pages, [\d.]+ pages\/s, about \d+s left\n/);
      expect(synced.stdout).toContain('[knowledge] sync done: 0 new, 1 changed');
      const byChild = site.requests.length - fetched;
      await vi.waitFor(
        () => expect(found('Where is the blue wheelbarrow kept?').join()).toContain('behind the greenhouse'),
        { timeout: 20_000, interval: 100 },
      );
      // The library read the store, not the site: every request since the change was the child's. It loaded the
      // index the command kept, rather than building it again.
      expect(site.requests.length - fetched).toBe(byChild);
      expect(log.at(-1)).toMatch(/^\[knowledge\] 3 pages, \d+ passages loaded from /);
    } finally {
      library.stop();
      await store.close();
    }
  }, 60_000);
});

describe('npm run knowledge', () => {
  it('prints only JSON for --json through `npm run -s`, as the docs write it, so that it can be piped', async () => {
    const docs = readFileSync(new URL('../../docs/knowledge.md', import.meta.url), 'utf8');
    expect(docs).toContain('npm run -s knowledge -- report --json | jq');
    const report = await knowledge(['report', '--json'], { dataDir: join(dir, 'empty') }, { npm: true }).done;
    expect(report.code).toBe(0);
    expect(JSON.parse(report.stdout).sources).toEqual([
      expect.objectContaining({ source: `${site.origin}/sitemap.xml`, state: 'not synced yet' }),
    ]);
  }, 60_000);

  it('exits 1 with one clear line when the store cannot be reached or a setting is wrong', async () => {
    const unreachable = await knowledge(['sync'], { databaseUrl: 'postgres://owner:fake-secret-pw@127.0.0.1:1/x' })
      .done;
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^\[knowledge\] PostgreSQL at 127\.0\.0\.1:1\/x: .*ECONNREFUSED.*\n$/);
    expect(unreachable.stdout + unreachable.stderr).not.toContain('fake-secret-pw');

    const wrong = await knowledge(['report'], { databaseUrl: 'mysql://owner:fake-secret-pw@db/x' }).done;
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('DATABASE_URL must be a postgres:// URL');
    expect(wrong.stderr).not.toContain('fake-secret-pw');

    const unknown = await knowledge(['crawl'], {}).done;
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('Usage: npm run knowledge -- <sync|report|ask> (got "crawl")\n');
  }, 60_000);
});
