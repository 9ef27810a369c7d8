// What a sync keeps between starts, shared by the two homes of the store and by the code above them.
import type { Passage } from '../library/library.ts';

/**
 * A passage as stored: its page's address, title and language live once, on the page. Its own address only when its
 * section's `#id` makes it another (a store written before section links has none).
 */
export type StoredPassage = Pick<Passage, 'headings' | 'text' | 'tokens' | 'keywords' | 'description'> & {
  url?: string;
};

/** One page as the last sync that read it left it. Times are ms since the epoch. */
export interface StoredPage {
  /** The `knowledge` entry it came from: a sitemap's address or a folder's path. */
  source: string;
  /** Where the source lists it: the sitemap's `<loc>`, or the file's path under the folder. A page's key. */
  address: string;
  /** Its link (the canonical address, the front matter's `url:`): what a reply cites. */
  url: string;
  title: string;
  language: string;
  /** The validators of its last `200`, sent back on the next sync (`If-None-Match`, `If-Modified-Since`). */
  etag?: string;
  lastModified?: string;
  /** A hash of its extracted text (a folder's file: of its bytes): the same hash changes nothing downstream. */
  textHash: string;
  /** A folder's file: its modification time, so an unchanged file is not even read. */
  mtimeMs?: number;
  fetchedAt: number;
  changedAt: number;
  passages: StoredPassage[];
}

/** An address a sync did not take, and why (`robots.txt disallows it`, `it answered 500`, ...). */
export interface SkippedAddress {
  source: string;
  url: string;
  reason: string;
}

/** How a source's last sync went: `ok`, `empty`, or `failed: ` and why. */
export interface SourceState {
  source: string;
  state: string;
  /** Its last sync, failed or not. */
  syncedAt: number;
  /** Its last sync that read it (`ok` or `empty`); none when it never was. */
  succeededAt?: number;
}

/** Everything the store holds, as one consistent reading. */
export interface KnowledgeSnapshot {
  /** Changes with every committed sync (see {@link KnowledgeStore.generation}). */
  generation: string;
  sources: SourceState[];
  pages: StoredPage[];
  skipped: SkippedAddress[];
}

/** What one sync changes, written all at once or not at all. */
export interface SyncChanges {
  /** The sources this sync read: their states replace the old, and so do their skipped addresses. */
  sources: SourceState[];
  /** New and changed pages (a page is keyed by its source and address: a second put replaces the first). */
  put: StoredPage[];
  /** Unchanged pages, asked again: only their validators and fetch time change. */
  touch: Pick<StoredPage, 'source' | 'address' | 'etag' | 'lastModified' | 'mtimeMs' | 'fetchedAt'>[];
  remove: Pick<StoredPage, 'source' | 'address'>[];
  skipped: SkippedAddress[];
  /** Sources no longer in the `knowledge` list: they leave with all their pages. */
  dropSources: string[];
}

/**
 * One interface, two homes (`FileStore`, `PostgresStore`): the same tests run against both. Every write is one
 * commit, so a sync killed at any moment leaves the previous store whole.
 */
export interface KnowledgeStore {
  /** Where it is, for log lines: never with credentials. */
  readonly home: string;
  load(): Promise<KnowledgeSnapshot>;
  /** A cheap reading that differs after every commit, by this process or another: replicas poll it. */
  generation(): Promise<string>;
  /**
   * Applies `changes` in one commit. `base` is the snapshot they were made on, loaded under the sync lock: a home that
   * applies them in memory need not read the store again while it is still the stored one.
   */
  commit(changes: SyncChanges, base?: KnowledgeSnapshot): Promise<void>;
  /**
   * Runs `work` holding the store's one sync lock, and answers `{ ran: false }` at once when another process holds
   * it. A holder that dies releases it.
   */
  /** The index last kept, as the text `saveIndex` was given, with the fingerprint of the pages it was built from. */
  loadIndex(): Promise<{ fingerprint: string; data: string } | undefined>;
  saveIndex(fingerprint: string, data: string): Promise<void>;
  withSyncLock<T>(work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }>;
  close(): Promise<void>;
}

/** A store this server must not use: written by a newer version, or not reachable. One line, never a stack. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** The applied changes, on a snapshot in memory (the file home's commit; the PostgreSQL home does it in SQL). */
export function applyChanges(snapshot: KnowledgeSnapshot, changes: SyncChanges, generation: string): KnowledgeSnapshot {
  const key = (page: { source: string; address: string }) => `${page.source}\n${page.address}`;
  const dropped = new Set(changes.dropSources);
  const synced = new Set(changes.sources.map((state) => state.source));
  const pages = new Map(snapshot.pages.filter((page) => !dropped.has(page.source)).map((page) => [key(page), page]));
  for (const page of changes.remove) pages.delete(key(page));
  for (const touch of changes.touch) {
    const page = pages.get(key(touch));
    if (page) pages.set(key(touch), { ...page, ...touch });
  }
  for (const page of changes.put) pages.set(key(page), page);
  return {
    generation,
    sources: [
      ...snapshot.sources.filter((state) => !dropped.has(state.source) && !synced.has(state.source)),
      ...changes.sources,
    ],
    pages: [...pages.values()],
    skipped: [
      ...snapshot.skipped.filter((skip) => !dropped.has(skip.source) && !synced.has(skip.source)),
      ...changes.skipped,
    ],
  };
}

/** The empty store: no source has been synced. */
export const EMPTY_SNAPSHOT: KnowledgeSnapshot = { generation: '0', sources: [], pages: [], skipped: [] };
