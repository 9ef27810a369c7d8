// The running library's one entry: the pages kept in a store, synced when older than the refresh interval (one
// replica at a time), and an index built in memory from the store. The rest of the server imports this file.
import {
  buildIndex,
  CRAWL_DEFAULTS,
  checkSource,
  explain,
  INDEX_BUDGET,
  type IndexBudget,
  type KnowledgeIndex,
  type KnowledgeSource,
  type Page,
  type Question,
  type RetrievalLimits,
  retrieve,
  type ScoredPassage,
  type SearchWordsReason,
  searchWordsReason,
  siteDescription,
  sourceKey,
  withoutCredentials,
} from '../library/library.ts';
import type { KnowledgeSnapshot, KnowledgeStore } from '../store/knowledge-store.ts';
import { afterAttempt, attempts, type Health } from './attempts.ts';
import { progressLines, SERVER_PROGRESS_MS } from './progress.ts';
import { pagesOf, storeIndex } from './store-index.ts';
import { type SyncOptions, sourcesToSync, syncOnce } from './sync.ts';

export { leftOutOfKeptIndex, snapshotPassages } from './store-index.ts';
export { syncOnce } from './sync.ts';

export interface KnowledgeOptions extends SyncOptions, IndexBudget {
  store: KnowledgeStore;
  /** How long a first sync (the store holding none of a source) goes on before the pages in so far answer. */
  firstIndexMs: number;
  /** A source whose last sync is older than this is synced again (`KNOWLEDGE_REFRESH_HOURS`). */
  refreshMs: number;
  /** How often the store is asked whether another process finished a sync (or whether a sync is due). */
  pollMs: number;
  /** The longest wait between two attempts while the store cannot be reached. */
  retryCapMs: number;
  /** The least time between two of a sync's progress lines in the log. */
  progressMs: number;
}

const KNOWLEDGE_DEFAULTS: Omit<KnowledgeOptions, 'store'> = {
  ...CRAWL_DEFAULTS,
  ...INDEX_BUDGET,
  firstIndexMs: 60_000,
  refreshMs: 24 * 60 * 60 * 1000,
  pollMs: 60_000,
  retryCapMs: 30_000,
  progressMs: SERVER_PROGRESS_MS,
  language: 'en',
  log: (line) => console.warn(line),
};

/** `indexing` until the configured sources are in the store; `unavailable` while the store cannot be reached. */
export type KnowledgeState = 'indexing' | 'indexed' | 'unavailable';

/** The running library: the current index, its state, and retrieval against it. */
export interface Knowledge {
  /** Settles when every configured source is in the store and indexed; it never rejects. */
  readonly ready: Promise<void>;
  isReady(): boolean;
  /** The library's state, and each source's (`ok`, `empty`, `failed: …`), for `/readyz`. */
  status(): { state: KnowledgeState; sources: { source: string; state: string }[] };
  /** {@link retrieve} on the current index; no passages before the first one is built. */
  retrieve(question: Question, limits?: RetrievalLimits): ScoredPassage[];
  /** {@link searchWordsReason} on the current index: why to ask a model for search words; none before it is built. */
  searchWordsReason(question: Question): SearchWordsReason | undefined;
  /** The pages' most common language, once the index is built. */
  language(): string | undefined;
  /** The home page's description ({@link siteDescription}), once the index is built. */
  description(): string | undefined;
  /** The addresses of the indexed pages (without a section's `#id`): the same list until the next index. */
  pages(): readonly string[];
  /** {@link explain} on the current index (for `npm run knowledge -- ask`); none before it is built. */
  explain(question: Question): ReturnType<typeof explain> | undefined;
  /** Syncs every source now (whatever their age), then indexes the store again. */
  refresh(): Promise<void>;
  /** Stops the timer; the current index keeps answering. */
  stop(): void;
}

/**
 * What the library answers from: nothing yet; an index of a first sync's pages so far (`early`, published at
 * `firstIndexMs` while the store holds none of a source); or the index of the store's snapshot.
 */
type Shelf =
  | { kind: 'empty' }
  | { kind: 'early'; index: KnowledgeIndex; loaded?: KnowledgeSnapshot }
  | { kind: 'loaded'; index: KnowledgeIndex; loaded: KnowledgeSnapshot };

/**
 * Starts the library on `store`: what it holds of the configured sources is indexed at once (a restart fetches no
 * page); what is missing or older than `refreshMs` is synced, under the store's lock, so that one replica crawls while
 * the others pick its sync up on their next poll. While the store cannot be reached, the last index keeps answering
 * and attempts follow with a growing wait (at most `retryCapMs`).
 */
export function startKnowledge(
  sources: readonly KnowledgeSource[],
  options: Partial<KnowledgeOptions> & Pick<KnowledgeOptions, 'store'>,
): Knowledge {
  const given: KnowledgeOptions = { ...KNOWLEDGE_DEFAULTS, ...options };
  const log = (line: string) => given.log(withoutCredentials(line));
  const settings = { ...given, log };
  const { store } = settings;
  sources.forEach(checkSource);
  const keys = new Set(sources.map(sourceKey));
  const covered = (snapshot: KnowledgeSnapshot | undefined) =>
    snapshot !== undefined && [...keys].every((key) => snapshot.sources.some((state) => state.source === key));
  let shelf: Shelf = { kind: 'empty' };
  let health: Health = { kind: 'ok' };
  const { ready, markReady } = readiness();
  const loadedOf = () => (shelf.kind === 'empty' ? undefined : shelf.loaded);

  const reload = async () => {
    const snapshot = await store.load();
    const built = await storeIndex(store, snapshot, keys, settings);
    // An early index, once published, stays the reason the library answers; the store's pages replace its pages.
    const { index } = built;
    shelf =
      shelf.kind === 'early' ? { kind: 'early', index, loaded: snapshot } : { kind: 'loaded', index, loaded: snapshot };
    const pages = snapshot.pages.filter((page) => keys.has(page.source)).length;
    const verb = built.kept ? 'loaded' : 'indexed';
    log(`[knowledge] ${pages} pages, ${built.index.passages.length} passages ${verb} from ${store.home}`);
    if (covered(snapshot)) markReady();
  };

  /** An index of the pages a first sync has read so far, while there is none of every source: they answer now. */
  const publishEarly = async (found: Page[]) => {
    const index = await buildIndex(found, settings, log);
    if (covered(loadedOf())) return;
    shelf = { kind: 'early', index, loaded: loadedOf() };
    const counts = `${found.length} pages, ${index.passages.length} passages`;
    log(`[knowledge] ${counts} indexed; the pages still coming join when they are in`);
    markReady();
  };

  const tick = async (all: boolean) => {
    if ((await store.generation()) !== loadedOf()?.generation) await reload();
    const loaded = loadedOf();
    if (!loaded) return;
    const { due, drop } = sourcesToSync(sources, loaded, all, settings.refreshMs);
    if (due.length === 0 && drop.length === 0) return;
    const found: Page[] = [];
    const firstWait = covered(loaded) || shelf.kind === 'early' ? undefined : settings.firstIndexMs;
    const first = firstWait === undefined ? undefined : setTimeout(() => void publishEarly(found), firstWait);
    try {
      const progress = progressLines(log, settings.progressMs);
      if ((await syncOnce(store, sources, { ...settings, all, found, progress })).ran) await reload();
    } finally {
      // Once every page is in, the index of them all is built next: an early one of the same pages would be a second.
      clearTimeout(first);
    }
  };

  const runner = attempts(tick, (error) => {
    const next = afterAttempt(health, error, settings, store.home);
    if (next.line) log(next.line);
    health = next.health;
    return next.wait;
  });
  void runner.run(false);
  const answering = () => shelf.kind === 'early' || covered(loadedOf());
  return {
    ready,
    ...libraryOver(() => (shelf.kind === 'empty' ? undefined : shelf.index)),
    isReady: () => shelf.kind !== 'empty' && answering(),
    status: () => ({
      state: health.kind === 'unavailable' ? 'unavailable' : answering() ? 'indexed' : 'indexing',
      sources: sourceStates(loadedOf(), keys),
    }),
    refresh: () => runner.refresh(),
    stop: () => runner.stop(),
  };
}

/** The state of each configured source in the store (`ok`, `empty`, `failed: …`). */
const sourceStates = (loaded: KnowledgeSnapshot | undefined, keys: Set<string>) =>
  (loaded?.sources ?? []).filter((state) => keys.has(state.source)).map(({ source, state }) => ({ source, state }));

/** Retrieval over whichever index is current (none before the first: no passages, no reason, no pages). */
function libraryOver(current: () => KnowledgeIndex | undefined) {
  return {
    retrieve: (question: Question, limits?: RetrievalLimits) => {
      const index = current();
      return index ? retrieve(index, question, limits) : [];
    },
    searchWordsReason: (question: Question) => {
      const index = current();
      return index ? searchWordsReason(index, question) : undefined;
    },
    language: () => current()?.language,
    description: () => {
      const index = current();
      return index ? siteDescription(index) : undefined;
    },
    pages: () => {
      const index = current();
      return index ? pagesOf(index) : [];
    },
    explain: (question: Question) => {
      const index = current();
      return index ? explain(index, question) : undefined;
    },
  };
}

/** A promise that settles once `markReady` is first called, and never rejects. */
function readiness(): { ready: Promise<void>; markReady: () => void } {
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  return { ready, markReady };
}
