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
import { progressLines, SERVER_PROGRESS_MS } from './progress.ts';
import { pagesOf, storeIndex } from './store-index.ts';
import { type SyncOptions, SyncWriteError, sourcesToSync, syncOnce } from './sync.ts';

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
  let index: KnowledgeIndex | undefined;
  let loaded: KnowledgeSnapshot | undefined;
  /** Whether an index of a first sync's pages so far answers, published at `firstIndexMs`. */
  let early = false;
  let unavailable = false;
  let failures = 0;
  /** Syncs in a row whose pages could not be written. */
  let writeFailures = 0;
  let lastFailure = '';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const covered = (snapshot: KnowledgeSnapshot) =>
    [...keys].every((key) => snapshot.sources.some((state) => state.source === key));

  const reload = async () => {
    const snapshot = await store.load();
    const built = await storeIndex(store, snapshot, keys, settings);
    index = built.index;
    loaded = snapshot;
    const pages = snapshot.pages.filter((page) => keys.has(page.source)).length;
    log(
      `[knowledge] ${pages} pages, ${index.passages.length} passages ${built.kept ? 'loaded' : 'indexed'} from ${store.home}`,
    );
    if (covered(snapshot)) markReady();
  };

  const tick = async (all: boolean) => {
    if ((await store.generation()) !== loaded?.generation) await reload();
    if (!loaded) return;
    const { due, drop } = sourcesToSync(sources, loaded, all, settings.refreshMs);
    if (due.length === 0 && drop.length === 0) return;
    const found: Page[] = [];
    const first =
      covered(loaded) || early ? undefined : setTimeout(() => void publishEarly(found), settings.firstIndexMs);
    let outcome: Awaited<ReturnType<typeof syncOnce>>;
    try {
      outcome = await syncOnce(store, sources, {
        ...settings,
        all,
        found,
        progress: progressLines(log, settings.progressMs),
      });
    } finally {
      // Once every page is in, the index of them all is built next: an early one of the same pages would be a second.
      clearTimeout(first);
    }
    if (outcome.ran) await reload();
  };

  /** An index of the pages a first sync has read so far, while there is none of every source: they answer now. */
  const publishEarly = async (found: Page[]) => {
    const built = await buildIndex(found, settings, log);
    if (loaded && covered(loaded)) return;
    index = built;
    early = true;
    log(
      `[knowledge] ${found.length} pages, ${built.passages.length} passages indexed; the pages still coming join when they are in`,
    );
    markReady();
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(false), delay).unref();
  };

  const run = (all: boolean): Promise<void> => {
    running ??= tick(all)
      .then(() => {
        if (unavailable) log(`[knowledge] ${store.home} answers again`);
        unavailable = false;
        failures = 0;
        writeFailures = 0;
        lastFailure = '';
        schedule(settings.pollMs);
      })
      .catch((error: Error) => {
        if (error instanceof SyncWriteError) {
          // Its sources were read, at a cost to them and to us: the next sync waits like a failed one, growing from
          // the poll to the refresh interval, not like a store that cannot be reached. The last store answers.
          const wait = Math.min(settings.refreshMs, settings.pollMs * 2 ** writeFailures++);
          log(`[knowledge] ${error.message}; the last store is kept, and synced again in ${Math.ceil(wait / 1000)} s`);
          schedule(wait);
          return;
        }
        unavailable = true;
        const wait = Math.min(settings.retryCapMs, 1000 * 2 ** failures++);
        // One line per kind of failure, not one per attempt.
        if (error.message !== lastFailure) log(`[knowledge] ${store.home} is unavailable: ${error.message}`);
        lastFailure = error.message;
        schedule(wait);
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  void run(false);
  return {
    ready,
    isReady: () => index !== undefined && (early || (loaded !== undefined && covered(loaded))),
    status: () => ({
      state: unavailable ? 'unavailable' : early || (loaded && covered(loaded)) ? 'indexed' : 'indexing',
      sources: (loaded?.sources ?? [])
        .filter((state) => keys.has(state.source))
        .map(({ source, state }) => ({ source, state })),
    }),
    retrieve: (question, limits) => (index ? retrieve(index, question, limits) : []),
    searchWordsReason: (question) => (index ? searchWordsReason(index, question) : undefined),
    language: () => index?.language,
    description: () => (index ? siteDescription(index) : undefined),
    pages: () => (index ? pagesOf(index) : []),
    explain: (question) => (index ? explain(index, question) : undefined),
    refresh: async () => {
      await running;
      await run(true);
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
