// The knowledge store's sync, measured on a local sitemap site of N pages with ETags (10,000 by default; `--pages=50000`
// for the large run): the first sync, a restart to ready, a re-sync of the unchanged site, and two replicas on an empty
// PostgreSQL store. Called from bench/knowledge.ts.
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import pg from 'pg';
import { CRAWL_DEFAULTS, INDEX_BUDGET, indexFromKept, indexToKeep, sourceKey } from '../server/knowledge/knowledge.ts';
import {
  type KnowledgeStore,
  openKnowledgeStore,
  type StoreSettings,
} from '../server/knowledge-store/knowledge-store.ts';
import {
  snapshotPassages,
  startKnowledge,
  syncAndKeepIndex,
  syncOnce,
} from '../server/knowledge-sync/knowledge-sync.ts';
import { startPostgresServer } from '../testing/postgres-server.ts';
import { markdownTable, met, ms, quantile } from './table.ts';

const WORDS =
  'garden spade rake hoe seed soil compost mulch prune hedge lawn mower glove bucket trowel shears hose'.split(' ');

/** A page of the synthetic site: its own title and about 300 words drawn from a small vocabulary. */
function pageHtml(n: number): string {
  const words = Array.from({ length: 300 }, (_, i) => WORDS[(n * 7 + i * 13 + (i % 5) * n) % WORDS.length]);
  return `<!doctype html><html lang="en"><head><title>Guide ${n}: ${WORDS[n % WORDS.length]} care</title></head><body>
<nav><a href="/">Home</a></nav><main><article><h1>Guide ${n}</h1><p>${words.slice(0, 150).join(' ')} item${n}.</p>
<h2>More</h2><p>${words.slice(150).join(' ')}.</p></article></main></body></html>`;
}

/** The site: robots.txt, one sitemap, `pages` pages with ETags answering 304; it counts page requests and bytes. */
async function startSite(pages: number) {
  const counts = { pageRequests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/robots.txt') return response.writeHead(200, { 'Content-Type': 'text/plain' }).end('');
    if (path === '/sitemap.xml') {
      const urls = Array.from({ length: pages }, (_, n) => `<url><loc>${origin}/p/${n}</loc></url>`).join('');
      return response.writeHead(200, { 'Content-Type': 'application/xml' }).end(`<urlset>${urls}</urlset>`);
    }
    const n = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? Number.NaN);
    if (!(n >= 0 && n < pages)) return response.writeHead(404).end();
    counts.pageRequests++;
    const etag = `"${n}-v1"`;
    if (request.headers['if-none-match'] === etag) return response.writeHead(304, { ETag: etag }).end();
    const body = pageHtml(n);
    counts.bytes += Buffer.byteLength(body);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ETag: etag }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, counts, close: () => server.close() };
}

const rssMb = () => process.memoryUsage().rss / 1e6;

/** One home's figures: first sync, store size, restart to ready, index rebuild against its kept forms, re-sync. */
async function measureHome(settings: StoreSettings, size: () => Promise<number>, pages: number) {
  const site = await startSite(pages);
  const sources = [{ sitemap: `${site.origin}/sitemap.xml`, maxPages: pages }];
  const options = { ...CRAWL_DEFAULTS, maxPages: pages, concurrency: 8, language: 'en', log: () => {} };
  const open = (): KnowledgeStore => openKnowledgeStore(settings, () => {});
  let store = open();
  let started = performance.now();
  // As `npm run knowledge -- sync` does before the servers start: the sync, then its index kept beside it.
  await syncAndKeepIndex(store, sources, options);
  const firstSync = (performance.now() - started) / 1000;
  const firstBytes = site.counts.bytes;
  const rssAfterSync = rssMb();
  await store.close();

  const requestsBefore = site.counts.pageRequests;
  store = open();
  started = performance.now();
  const knowledge = startKnowledge(sources, { store, log: () => {} });
  await knowledge.ready;
  const restart = (performance.now() - started) / 1000;
  const fetchedAtRestart = site.counts.pageRequests - requestsBefore;
  const times: number[] = [];
  for (let round = 0; round < 200; round++) {
    const at = performance.now();
    knowledge.retrieve({ latest: `How do I ${WORDS[round % WORDS.length]} the ${WORDS[(round * 3) % WORDS.length]}?` });
    times.push(performance.now() - at);
  }
  knowledge.stop();

  // Indexing the stored passages again, against loading the kept index (their terms) and MiniSearch's own JSON.
  const snapshot = await store.load();
  const passages = snapshotPassages(snapshot, new Set(sources.map(sourceKey)));
  started = performance.now();
  const { index, kept } = await indexToKeep(passages, INDEX_BUDGET, () => {});
  const rebuild = performance.now() - started;
  started = performance.now();
  await indexFromKept(kept, passages);
  const fromKept = performance.now() - started;
  const json = JSON.stringify(index.search);
  started = performance.now();
  MiniSearch.loadJSON(json, { fields: ['title', 'headings', 'text'] });
  const fromJson = performance.now() - started;

  site.counts.bytes = 0;
  const summary = await syncOnce(store, sources, options);
  const resyncBytes = site.counts.bytes;
  const rechunked = summary.ran && summary.result ? summary.result.new + summary.result.changed : Number.NaN;
  const storeBytes = await size();
  await store.close();
  site.close();
  return {
    firstSync,
    firstBytes,
    rssAfterSync,
    restart,
    fetchedAtRestart,
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
    startKnowledge(sources, { store, log: () => {}, maxPages: pages, concurrency: 8, pollMs: 1000 }),
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
          'RSS after the first sync',
          (f) => `${f.rssAfterSync.toFixed(0)} MB`,
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
          'index built / loaded from its kept terms / from MiniSearch JSON',
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
    return {
      text: `## Sync, ${pages.toLocaleString('en-US')} pages with ETags\n\n${table}\n\n${replicas}`,
      data: { pages, files, postgres: postgresFigures, replicaFetches },
    };
  } finally {
    await postgres.remove();
    await rm(dataDir, { recursive: true, force: true });
  }
}
