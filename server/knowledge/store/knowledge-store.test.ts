import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledProcess } from '../../../testing/knowledge-command.ts';
import { type PostgresServer, startPostgresServer } from '../../../testing/postgres-server.ts';
import { storeHomes } from '../../../testing/store-homes.ts';
import { type KnowledgeStore, openKnowledgeStore, type StoredPage, type StoreSettings } from './knowledge-store.ts';

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgresServer();
}, 60_000);
afterAll(() => postgres?.remove());

const page = (url: string, extra: Partial<StoredPage> = {}): StoredPage => ({
  source: 'https://docs.example/sitemap.xml',
  address: url,
  url,
  title: `Title of ${url}`,
  language: 'en',
  etag: '"v1"',
  textHash: 'hash-1',
  fetchedAt: 1_700_000_000_000,
  changedAt: 1_700_000_000_000,
  passages: [
    { headings: ['Install'], text: `The text of ${url}.`, tokens: 6 },
    // A section's own address and the page's keywords travel with its passage (issue 35).
    { url: `${url}#upgrade`, keywords: 'update, new version', headings: ['Upgrade'], text: 'Upgrade.', tokens: 4 },
  ],
  ...extra,
});
const SOURCE = 'https://docs.example/sitemap.xml';
const changes = (extra: Partial<Parameters<KnowledgeStore['commit']>[0]>) => ({
  sources: [{ source: SOURCE, state: 'ok', syncedAt: 1_700_000_000_000 }],
  put: [],
  touch: [],
  remove: [],
  skipped: [],
  dropSources: [],
  ...extra,
});

/** A process that takes the lock and holds it until it is killed. */
async function lockHolder(settings: StoreSettings): Promise<ChildProcess> {
  const [node, script] = bundledProcess('hold-sync-lock');
  const child = spawn(node, [script, JSON.stringify(settings)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  expect(line.toString()).toBe('held\n');
  return child;
}

const homes = storeHomes(() => postgres);

describe.each(homes)('the knowledge store in %s', (_home, makeSettings) => {
  const opened: KnowledgeStore[] = [];
  const open = (settings: StoreSettings, log: (line: string) => void = () => {}) => {
    const store = openKnowledgeStore(settings, log);
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('starts empty, and gives back what a commit wrote, to another process too', async () => {
    const settings = await makeSettings();
    const store = open(settings);
    expect(await store.load()).toMatchObject({ sources: [], pages: [], skipped: [] });
    const before = await store.generation();
    const skipped = [{ source: SOURCE, url: 'https://docs.example/secret', reason: 'robots.txt disallows it' }];
    await store.commit(changes({ put: [page('https://docs.example/a'), page('https://docs.example/b')], skipped }));

    const other = open(settings);
    expect(await other.generation()).not.toBe(before);
    const loaded = await other.load();
    expect(loaded.generation).toBe(await store.generation());
    expect(loaded.sources).toEqual([{ source: SOURCE, state: 'ok', syncedAt: 1_700_000_000_000 }]);
    expect(loaded.pages.sort((a, b) => a.url.localeCompare(b.url))).toEqual([
      page('https://docs.example/a'),
      page('https://docs.example/b'),
    ]);
    expect(loaded.skipped).toEqual(skipped);
  });

  it('touches, replaces and removes pages, and drops a source that left the list', async () => {
    const store = open(await makeSettings());
    await store.commit(
      changes({
        put: [page('https://docs.example/a'), page('https://docs.example/b'), page('https://docs.example/c')],
        skipped: [{ source: SOURCE, url: 'https://docs.example/old', reason: 'it answered 500' }],
      }),
    );
    await store.commit(
      changes({
        sources: [{ source: '/srv/docs', state: 'ok', syncedAt: 5 }],
        put: [page('https://docs.example/f', { source: '/srv/docs', etag: undefined, mtimeMs: 42.5 })],
      }),
    );
    await store.commit(
      changes({
        sources: [{ source: SOURCE, state: 'ok', syncedAt: 1_700_000_100_000 }],
        touch: [{ source: SOURCE, address: 'https://docs.example/a', etag: '"v2"', fetchedAt: 1_700_000_100_000 }],
        put: [page('https://docs.example/b', { textHash: 'hash-2', changedAt: 1_700_000_100_000 })],
        remove: [{ source: SOURCE, address: 'https://docs.example/c' }],
      }),
    );
    const loaded = await store.load();
    const byUrl = new Map(loaded.pages.map((stored) => [stored.url, stored]));
    expect([...byUrl.keys()].sort()).toEqual([
      'https://docs.example/a',
      'https://docs.example/b',
      'https://docs.example/f',
    ]);
    expect(byUrl.get('https://docs.example/a')).toEqual(
      page('https://docs.example/a', { etag: '"v2"', fetchedAt: 1_700_000_100_000 }),
    );
    expect(byUrl.get('https://docs.example/b')?.textHash).toBe('hash-2');
    expect(byUrl.get('https://docs.example/f')?.mtimeMs).toBe(42.5);
    // A source's skipped addresses are those of its last sync.
    expect(loaded.skipped).toEqual([]);

    await store.commit(changes({ sources: [], dropSources: ['/srv/docs'] }));
    const dropped = await store.load();
    expect(dropped.pages.map((stored) => stored.url).sort()).toEqual([
      'https://docs.example/a',
      'https://docs.example/b',
    ]);
    expect(dropped.sources.map((state) => state.source)).toEqual([SOURCE]);
  });

  it('keeps one index beside the pages, replaced by the next', async () => {
    const settings = await makeSettings();
    const store = open(settings);
    expect(await store.loadIndex()).toBeUndefined();
    await store.saveIndex('pages-1', '{"search":1}');
    await store.saveIndex('pages-2', '{"search":\n2}');
    expect(await open(settings).loadIndex()).toEqual({ fingerprint: 'pages-2', data: '{"search":\n2}' });
  });

  it('lets one holder have the sync lock at a time, and frees it when its holder is killed', async () => {
    const settings = await makeSettings();
    const store = open(settings);
    const inside = await store.withSyncLock(async () => (await open(settings).withSyncLock(async () => 'second')).ran);
    expect(inside).toEqual({ ran: true, result: false });
    expect(await store.withSyncLock(async () => 'again')).toEqual({ ran: true, result: 'again' });

    const holder = await lockHolder(settings);
    try {
      expect(await store.withSyncLock(async () => 'taken')).toEqual({ ran: false });
    } finally {
      const exited = once(holder, 'exit');
      holder.kill('SIGKILL');
      await exited;
    }
    // PostgreSQL notices the closed connection at once; give it a moment on a busy machine.
    let outcome = await store.withSyncLock(async () => 'free');
    for (let tries = 0; !outcome.ran && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      outcome = await store.withSyncLock(async () => 'free');
    }
    expect(outcome).toEqual({ ran: true, result: 'free' });
  }, 30_000);
});

describe('the embedded store', () => {
  it('moves a corrupt file aside, says so, and starts empty', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'knowledge-store-'));
    const lines: string[] = [];
    const store = openKnowledgeStore({ dataDir }, (line) => lines.push(line));
    await store.commit(changes({ put: [page('https://docs.example/a')] }));
    await writeFile(join(dataDir, 'knowledge', 'store.json'), '{"schema":1,"pages":[{"url":');
    expect((await store.load()).pages).toEqual([]);
    const names = await readdir(join(dataDir, 'knowledge'));
    const aside = names.find((name) => name.startsWith('store.json.unreadable-'));
    expect(aside).toBeDefined();
    expect(lines).toEqual([
      expect.stringMatching(/^\[knowledge\] the store .*store\.json was moved aside to .*unreadable-/),
    ]);
    await store.commit(changes({ put: [page('https://docs.example/b')] }));
    expect((await store.load()).pages.map((stored) => stored.url)).toEqual(['https://docs.example/b']);
    await rm(dataDir, { recursive: true });
  });

  it('writes a line per page, and still reads a store of schema 1 (one JSON value), which its next commit rewrites', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'knowledge-store-'));
    const file = join(dataDir, 'knowledge', 'store.json');
    const store = openKnowledgeStore({ dataDir }, () => {});
    await store.commit(changes({}));
    const [a, b] = [page('https://docs.example/a'), page('https://docs.example/b', { etag: undefined })];
    const { etag: _, ...withoutEtag } = b;
    const sources = [{ source: SOURCE, state: 'ok', syncedAt: 1 }];
    await writeFile(file, JSON.stringify({ schema: 1, sources, pages: [a, withoutEtag], skipped: [] }));
    const old = await store.load();
    expect(old.pages).toEqual([a, withoutEtag]);
    expect(old.sources).toEqual(sources);

    await store.commit(changes({ remove: [{ source: SOURCE, address: a.address }] }), old);
    const lines = (await readFile(file, 'utf8')).split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([{ schema: 2, sources: changes({}).sources, skipped: [] }, withoutEtag]);
    expect((await store.load()).pages).toEqual([withoutEtag]);
    await rm(dataDir, { recursive: true });
  });

  it('refuses a store written by a newer version, in one line', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'knowledge-store-'));
    const store = openKnowledgeStore({ dataDir }, () => {});
    await store.commit(changes({}));
    await writeFile(join(dataDir, 'knowledge', 'store.json'), JSON.stringify({ schema: 3, sources: [] }));
    await expect(store.load()).rejects.toThrow(
      /^the knowledge store .* was written by a newer version \(schema 3; this server reads up to 2\): upgrade the server$/,
    );
    await rm(dataDir, { recursive: true });
  });
});

describe('the PostgreSQL store', () => {
  it('creates its schema in an empty database, migrates an older one, and refuses a newer one', async () => {
    const url = await postgres.createDatabase('migrations');
    const first = [
      { version: 1, name: '001-a.sql', sql: 'CREATE TABLE knowledge_syncs (generation bigserial PRIMARY KEY)' },
    ];
    const older = openKnowledgeStore({ dataDir: '', databaseUrl: url }, () => {});
    // The real schema on an empty database.
    expect(await older.generation()).toBe('0');
    await older.close();

    const { PostgresStore } = await import('./postgres-store.ts');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        'DROP TABLE knowledge_schema, knowledge_syncs, knowledge_pages, knowledge_sources, knowledge_skipped, knowledge_index',
      );
      const v1 = new PostgresStore(url, () => {}, first);
      expect(await v1.generation()).toBe('0');
      await v1.close();
      const second = [
        ...first,
        { version: 2, name: '002-b.sql', sql: 'ALTER TABLE knowledge_syncs ADD COLUMN note text' },
      ];
      const v2 = new PostgresStore(url, () => {}, second);
      expect(await v2.generation()).toBe('0');
      await v2.close();
      const columns = await client.query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'knowledge_syncs' ORDER BY 1",
      );
      expect(columns.rows.map((row) => row.column_name)).toEqual(['generation', 'note']);
      expect((await client.query('SELECT version FROM knowledge_schema')).rows).toEqual([{ version: 2 }]);

      const v1Again = new PostgresStore(url, () => {}, first);
      await expect(v1Again.generation()).rejects.toThrow(
        /^the knowledge store in PostgreSQL at 127\.0\.0\.1:\d+\/migrations was written by a newer version \(schema 2; this server knows up to 1\): upgrade the server$/,
      );
      await v1Again.close();
    } finally {
      await client.end();
    }
  });

  it('never names the credentials of DATABASE_URL', async () => {
    const url = (await postgres.createDatabase('secret')).replace('postgres@', 'postgres:fake-secret-pw@');
    const lines: string[] = [];
    const store = openKnowledgeStore({ dataDir: '', databaseUrl: url }, (line) => lines.push(line));
    expect(store.home).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/secret$/);
    await store.commit(changes({}));
    await store.close();
    expect(lines.join('\n')).not.toContain('fake-secret-pw');
  });
});
