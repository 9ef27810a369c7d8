// The knowledge store's sync, measured on a local sitemap site of N pages with ETags (10,000 by default; `--pages=50000`
// for the large run): the first sync, a restart to ready, a re-sync of the unchanged site, and two replicas on an empty
// PostgreSQL store. Called from bench/knowledge.ts.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import pg from 'pg';
import {
  openKnowledgeStore,
  type StoreSettings,
  sourceKey,
  startKnowledge,
  syncOnce,
} from '../server/knowledge/knowledge.ts';
// The index's kept form and the store's passages, measured here, are the library's own: its door, not the room's.
import { indexFromKept, indexToKeep, leftOutOf } from '../server/knowledge/library/library.ts';
import { snapshotPassages } from '../server/knowledge/sync/knowledge-sync.ts';
import { startPostgresServer } from '../testing/postgres-server.ts';
import { spawnScript } from './cannon-run.ts';
import type { FirstSync } from './knowledge-sync-first.ts';
import { chatDuringSync } from './knowledge-sync-load.ts';
import { siteBudget, startSite, syncOptions, topicWord } from './knowledge-sync-site.ts';
import { markdownTable, met, ms, quantile } from './table.ts';

/** The first sync, run by bench/knowledge-sync-first.ts in a process of its own: its time and memory. */
async function firstSyncApart(settings: StoreSettings, sitemap: string, pages: number): Promise<FirstSync> {
  const args = [JSON.stringify({ settings, sitemap, pages })];
  return JSON.parse((await spawnScript('bench/knowledge-sync-first.ts', args, true)).output);
}

/** One home's figures: first sync, store size, restart to ready, index rebuild against its kept forms, re-sync. */
async function measureHome(settings: StoreSettings, size: () => Promise<number>, pages: number) {
  const site = await startSite(pages);
  const sources = [{ sitemap: `${site.origin}/sitemap.xml`, maxPages: pages }];
  const { budget } = siteBudget(pages);
  const first = await firstSyncApart(settings, sources[0].sitemap, pages);
  const firstBytes = site.counts.bytes;

  const requestsBefore = site.counts.pageRequests;
  const store = openKnowledgeStore(settings, () => {});
  let started = performance.now();
  const knowledge = startKnowledge(sources, { store, ...budget, log: () => {} });
  await knowledge.ready;
  const restart = (performance.now() - started) / 1000;
  const fetchedAtRestart = site.counts.pageRequests - requestsBefore;
  const times: number[] = [];
  for (let round = 0; round < 200; round++) {
    const at = performance.now();
    // A visitor's question about one page's topic: two of its words.
    const n = (round * 37) % pages;
    knowledge.retrieve({ latest: `How do I ${topicWord(n, round % 40)} the ${topicWord(n, (round + 1) % 40)}?` });
    times.push(performance.now() - at);
  }
  knowledge.stop();

  // Indexing the stored passages again, against loading the kept index and MiniSearch's own JSON (loaded at once).
  const snapshot = await store.load();
  // The kept index's first line names the pages its budget left out (a 50,000-page site passes its text budget).
  const keptIndex = await store.loadIndex();
  const leftOut = keptIndex ? leftOutOf(keptIndex.data).length : 0;
  const passages = await snapshotPassages(snapshot, new Set(sources.map(sourceKey)));
  started = performance.now();
  const { index, kept } = await indexToKeep(passages, budget, () => {});
  const rebuild = performance.now() - started;
  started = performance.now();
  await indexFromKept(kept, passages);
  const fromKept = performance.now() - started;
  const json = JSON.stringify(index.search);
  started = performance.now();
  MiniSearch.loadJSON(json, { fields: ['title', 'keywords', 'headings', 'text'] });
  const fromJson = performance.now() - started;

  site.counts.bytes = 0;
  const summary = await syncOnce(store, sources, syncOptions(pages));
  const resyncBytes = site.counts.bytes;
  const rechunked = summary.ran && summary.result ? summary.result.new + summary.result.changed : Number.NaN;
  const storeBytes = await size();
  await store.close();
  site.close();
  return {
    firstSync: first.seconds,
    firstBytes,
    rssPeak: first.rssPeakMb,
    rssAfterSync: first.rssAfterMb,
    restart,
    fetchedAtRestart,
    leftOut,
    p95: quantile(times, 0.95),
    rebuild,
    fromKept,
    keptBytes: kept.length,
    fromJson,
    jsonBytes: json.length,
    resyncShare: resyncBytes / firstBytes,
    rechunked,
    storeBytes,
  };
}

/** Two replicas started together on an empty PostgreSQL store: how many page requests the site saw. */
async function twoReplicas(databaseUrl: string, pages: number): Promise<number> {
  const site = await startSite(pages);
  const sources = [{ sitemap: `${site.origin}/sitemap.xml`, maxPages: pages }];
  const stores = [0, 1].map(() => openKnowledgeStore({ dataDir: '', databaseUrl }, () => {}));
  const replicas = stores.map((store) =>
    startKnowledge(sources, {
      store,
      ...siteBudget(pages).budget,
      log: () => {},
      maxPages: pages,
      concurrency: 8,
      pollMs: 1000,
    }),
  );
  await Promise.all(replicas.map((replica) => replica.ready));
  for (const replica of replicas) replica.stop();
  await Promise.all(stores.map((store) => store.close()));
  site.close();
  return site.counts.pageRequests;
}

/** The sync figures as a markdown table, for bench/knowledge.ts to print and keep. */
export async function syncBench(pages: number): Promise<{ text: string; data: unknown }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-knowledge-sync-'));
  const postgres = await startPostgresServer();
  try {
    const files = await measureHome(
      { dataDir },
      async () => (await stat(join(dataDir, 'knowledge', 'store.json'))).size,
      pages,
    );
    const databaseUrl = await postgres.createDatabase('bench');
    const sizeOf = async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query('SELECT pg_database_size(current_database()) AS bytes');
      await client.end();
      return Number(rows[0].bytes);
    };
    const postgresFigures = await measureHome({ dataDir: '', databaseUrl }, sizeOf, pages);
    const replicaFetches = await twoReplicas(await postgres.createDatabase('replicas'), pages);
    const loadDir = await mkdtemp(join(tmpdir(), 'bench-knowledge-load-'));
    const chat = await chatDuringSync({ dataDir: loadDir }, pages).finally(() =>
      rm(loadDir, { recursive: true, force: true }),
    );
    const row = (
      name: string,
      value: (f: typeof files) => string,
      target: string,
      ok: (f: typeof files) => boolean,
    ) => [name, value(files), value(postgresFigures), target, met(ok(files) && ok(postgresFigures))];
    const table = markdownTable(
      ['', 'files under DATA_DIR', 'PostgreSQL', 'target', 'met'],
      [
        row(
          'first sync',
          (f) => `${f.firstSync.toFixed(1)} s, ${(f.firstBytes / 1e6).toFixed(1)} MB`,
          '',
          () => true,
        ),
        row(
          "the first sync's process (as `npm run knowledge -- sync`): RSS at its peak / after",
          (f) => `${f.rssPeak.toFixed(0)} / ${f.rssAfterSync.toFixed(0)} MB`,
          '',
          () => true,
        ),
        row(
          'store size on disk',
          (f) => `${(f.storeBytes / 1e6).toFixed(1)} MB`,
          '',
          () => true,
        ),
        row(
          'restart to ready',
          (f) => `${f.restart.toFixed(2)} s, ${f.fetchedAtRestart} pages fetched`,
          '≤ 5 s, 0 pages',
          (f) => f.restart <= 5 && f.fetchedAtRestart === 0,
        ),
        row(
          'pages the index budget left out',
          (f) => String(f.leftOut),
          '',
          () => true,
        ),
        row(
          're-sync of the unchanged site: bytes of the first',
          (f) => `${(f.resyncShare * 100).toFixed(2)}%`,
          '≤ 5%',
          (f) => f.resyncShare <= 0.05,
        ),
        row(
          're-sync: pages re-chunked',
          (f) => String(f.rechunked),
          '0',
          (f) => f.rechunked === 0,
        ),
        row(
          'index built / loaded from its kept form / from MiniSearch JSON',
          (f) =>
            `${ms(f.rebuild, 0)} / ${ms(f.fromKept, 0)} (${(f.keptBytes / 1e6).toFixed(1)} MB) / ${ms(f.fromJson, 0)} (${(f.jsonBytes / 1e6).toFixed(1)} MB)`,
          '',
          () => true,
        ),
        row(
          'retrieval p95 after the restart',
          (f) => ms(f.p95),
          '≤ 20 ms',
          (f) => f.p95 <= 20,
        ),
      ],
    );
    const replicas = `Two replicas started together on an empty PostgreSQL store: ${replicaFetches} page fetches for ${pages} pages (target: equal, ${met(replicaFetches === pages)}).`;
    const added = chat.during.p99 - chat.quiet.p99;
    const during = [
      `Chat while the site syncs (files under DATA_DIR; every page changed, a sync of ${chat.syncSeconds.toFixed(0)} s`,
      `its index included; the cannon of \`npm run load\`, ${chat.during.requests} requests, ${chat.errors} errors):`,
      `p50 / p99 ${ms(chat.during.p50)} / ${ms(chat.during.p99)} against ${ms(chat.quiet.p50)} / ${ms(chat.quiet.p99)}`,
      `without a sync: p99 ${added >= 0 ? '+' : ''}${ms(added)} (target ≤ +20 ms: ${met(added <= 20)}).`,
    ].join(' ');
    return {
      text: `## Sync, ${pages.toLocaleString('en-US')} pages with ETags (KNOWLEDGE_INDEX_TEXT=${siteBudget(pages).millions})\n\n${table}\n\n${replicas}\n\n${during}`,
      data: { pages, files, postgres: postgresFigures, replicaFetches, chat },
    };
  } finally {
    await postgres.remove();
    await rm(dataDir, { recursive: true, force: true });
  }
}
