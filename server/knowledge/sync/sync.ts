import { createHash } from 'node:crypto';
import {
  type CrawlLimits,
  chunkPage,
  type FileOutcome,
  INDEX_BUDGET,
  type IndexBudget,
  type KnowledgeSource,
  type Page,
  type PageOutcome,
  readFolder,
  readingHash,
  readSitemap,
  readThisWay,
  slicer,
  sourceKey,
  withoutCredentials,
} from '../library/library.ts';
import {
  applyChanges,
  type KnowledgeSnapshot,
  type KnowledgeStore,
  type SourceState,
  type StoredPage,
  type SyncChanges,
} from '../store/knowledge-store.ts';
import { keepIndex } from './store-index.ts';
import { emptySummary, reasonKind, type SyncSummary, summaryLine } from './sync-summary.ts';

export interface SyncOptions extends CrawlLimits {
  /** A page's language when it does not say. */
  language: string;
  log: (line: string) => void;
  /** Called as pages are read: how many of how many listed so far. */
  progress?: (done: number, total: number) => void;
  /** Receives the sitemaps' pages as they come in, for a first index that cannot wait for them all. */
  found?: Page[];
}

/** A page's extracted text as a hash: a `200` with the same hash changes nothing downstream (no chunking, no index). */
export const pageHash = (page: Page) =>
  readingHash(
    createHash('sha256')
      .update(
        JSON.stringify([
          page.url,
          page.title,
          page.language,
          page.sections,
          page.keywords ?? '',
          page.description ?? '',
        ]),
      )
      .digest('base64url'),
  );

/** The page as the store keeps it: its passages cut now, once, and kept until its text changes. */
function storedPage(source: string, address: string, page: Page, hash: string, now: number): StoredPage {
  return {
    source,
    address,
    url: page.url,
    title: page.title,
    language: page.language,
    textHash: hash,
    fetchedAt: now,
    changedAt: now,
    passages: chunkPage(page).map(({ url, keywords, description, headings, text, tokens }) => ({
      ...(url === page.url ? {} : { url }),
      ...(keywords ? { keywords } : {}),
      ...(description ? { description } : {}),
      headings,
      text,
      tokens,
    })),
  };
}

/**
 * Reads `sources` against what `snapshot` holds and says what changed: new and changed pages (chunked once), unchanged
 * ones (only their validators and time), removed ones (gone from the listing, `404`, `410`, not a page any more), and
 * every address not taken. A page that failed otherwise keeps its last copy; a source that cannot be read at all keeps
 * all its pages and is marked `failed: …`. `dropSources` (no longer configured) leave with their pages.
 */
export async function syncSources(
  sources: readonly KnowledgeSource[],
  snapshot: KnowledgeSnapshot,
  dropSources: string[],
  options: SyncOptions,
): Promise<{ changes: SyncChanges; summary: SyncSummary }> {
  const started = Date.now();
  const changes: SyncChanges = { sources: [], put: [], touch: [], remove: [], skipped: [], dropSources };
  const summary = emptySummary();
  for (const source of sources) {
    const key = sourceKey(source);
    const stored = new Map(snapshot.pages.filter((page) => page.source === key).map((page) => [page.address, page]));
    // A page stored under another reading (page.ts) is read again whole: no validators, no <lastmod>, no file's time.
    const known = new Map([...stored].filter(([, page]) => readThisWay(page.textHash)));
    if (known.size < stored.size)
      options.log(`[knowledge] ${key}: ${stored.size - known.size} pages stored by an older reading are read again`);
    const now = Date.now();
    let outcomes: (PageOutcome | FileOutcome)[];
    try {
      outcomes = await readSource(source, known, now, options);
    } catch (error) {
      const reason = (error as Error).message;
      changes.sources.push(failedState(snapshot, key, reason, now));
      summary.failed.push({ source: key, reason });
      options.log(`[knowledge] ${key} was not read${stored.size > 0 ? ' (its pages are kept)' : ''}: ${reason}`);
      continue;
    }
    const kept = new Set<string>();
    // Chunking and hashing a thousand pages (or one of 200,000 words) is work on the thread that serves chat.
    const slice = slicer();
    for (const outcome of outcomes) {
      await slice();
      if (record({ key, outcome, before: stored.get(outcome.address), now }, changes, summary))
        kept.add(outcome.address);
    }
    for (const address of stored.keys()) {
      if (kept.has(address)) continue;
      changes.remove.push({ source: key, address });
      summary.removed++;
    }
    changes.sources.push({ source: key, state: kept.size > 0 ? 'ok' : 'empty', syncedAt: now, succeededAt: now });
  }
  summary.ms = Date.now() - started;
  return { changes, summary };
}

/** What became of each page of one source (a sitemap's addresses not taken are outcomes too). */
async function readSource(
  source: KnowledgeSource,
  known: Map<string, StoredPage>,
  now: number,
  options: SyncOptions,
): Promise<(PageOutcome | FileOutcome)[]> {
  const language = source.language ?? options.language;
  if (!('sitemap' in source)) return readFolder(source.path, source.url, language, options.log, known);
  const limits = { ...options, maxPages: source.maxPages ?? options.maxPages };
  const { progress, found } = options;
  const read = await readSitemap(source.sitemap, language, limits, options.log, { known, now, progress, found });
  return [...read.outcomes, ...read.skipped.map((skip) => ({ ...skip, kind: 'skipped' as const }))];
}

/** A source that could not be read: failed now, with the time it last succeeded. */
function failedState(snapshot: KnowledgeSnapshot, key: string, reason: string, now: number): SourceState {
  const before = snapshot.sources.find((state) => state.source === key);
  // A store written before `succeededAt` has one time: its last sync's, which succeeded unless it failed.
  const succeededAt = before?.state.startsWith('failed: ') ? before.succeededAt : before?.syncedAt;
  const state: SourceState = { source: key, state: `failed: ${reason}`, syncedAt: now };
  return succeededAt === undefined ? state : { ...state, succeededAt };
}

/** One page's outcome into the changes and the summary; whether the store keeps the page. */
function record(
  { key, outcome, before, now }: { key: string; outcome: PageOutcome | FileOutcome; before?: StoredPage; now: number },
  changes: SyncChanges,
  summary: SyncSummary,
): boolean {
  const { address } = outcome;
  if (outcome.kind === 'page') {
    summary.bytes += outcome.bytes;
    const hash = 'textHash' in outcome ? outcome.textHash : pageHash(outcome.page);
    const validators = {
      ...('etag' in outcome && outcome.etag ? { etag: outcome.etag } : {}),
      ...('lastModified' in outcome && outcome.lastModified ? { lastModified: outcome.lastModified } : {}),
      ...('mtimeMs' in outcome ? { mtimeMs: outcome.mtimeMs } : {}),
    };
    if (before?.textHash === hash) {
      summary.unchanged.sameText++;
      changes.touch.push({ source: key, address, ...validators, fetchedAt: now });
    } else {
      summary[before ? 'changed' : 'new']++;
      changes.put.push({ ...storedPage(key, address, outcome.page, hash, now), ...validators });
    }
    return true;
  }
  if (outcome.kind === 'not-modified' || outcome.kind === 'unchanged') {
    summary.unchanged[outcome.kind === 'unchanged' ? 'sameText' : 'notModified']++;
    const { kind: _, ...validators } = outcome;
    if (before) changes.touch.push({ ...validators, source: key, address, fetchedAt: now });
    return true;
  }
  if (outcome.kind === 'lastmod') {
    summary.unchanged.lastmod++;
    return true;
  }
  const kind = reasonKind(outcome.reason);
  summary.skipped[kind] = (summary.skipped[kind] ?? 0) + 1;
  changes.skipped.push({ source: key, url: address, reason: outcome.reason });
  return outcome.kind === 'failed' && before !== undefined;
}

/** The sources that need a sync now (all of them with `all`), and the stored ones that left the list. */
export function sourcesToSync(
  sources: readonly KnowledgeSource[],
  snapshot: KnowledgeSnapshot,
  all: boolean,
  refreshMs: number,
) {
  const now = Date.now();
  const keys = new Set(sources.map(sourceKey));
  const synced = new Map(snapshot.sources.map((state) => [state.source, state.syncedAt]));
  const due = sources.filter((source) => {
    const at = synced.get(sourceKey(source));
    return all || at === undefined || now - at >= refreshMs;
  });
  return { due, drop: [...synced.keys()].filter((key) => !keys.has(key)) };
}

/** A sync that read its sources and could not commit what it read (a full disk): the store holds the last one. */
export class SyncWriteError extends Error {
  override name = 'SyncWriteError';
}

/**
 * One sync of what is due (every source with `all`, the default) into `store`, under its lock: `{ ran: false }` when
 * another process holds it. What is due is decided on the store as it is once the lock is held, since another
 * replica may have synced in the meantime. The server's refresh and `npm run knowledge -- sync` both run this.
 */
export async function syncOnce(
  store: KnowledgeStore,
  sources: readonly KnowledgeSource[],
  options: SyncOptions & Partial<IndexBudget> & { all?: boolean; refreshMs?: number },
) {
  // No log line carries an address's credentials, whichever part of the library writes it.
  const log = (line: string) => options.log(withoutCredentials(line));
  return store.withSyncLock(async () => {
    const fresh = await store.load();
    const { due, drop } = sourcesToSync(sources, fresh, options.all ?? true, options.refreshMs ?? 0);
    if (due.length === 0 && drop.length === 0) return undefined;
    const { changes, summary } = await syncSources(due, fresh, drop, { ...options, log });
    // The index of the pages as the commit leaves them, kept first: whoever sees the commit (a replica, the server
    // after `npm run knowledge -- sync`) loads it instead of building its own.
    const keys = new Set(sources.map(sourceKey));
    await keepIndex(store, applyChanges(fresh, changes, ''), keys, { ...INDEX_BUDGET, ...options, log });
    try {
      await store.commit(changes, fresh);
    } catch (error) {
      throw new SyncWriteError(`the sync's pages could not be written to ${store.home}: ${(error as Error).message}`);
    }
    log(`[knowledge] sync done: ${summaryLine(summary)}`);
    return summary;
  });
}
