// The knowledge library's one entry: the rest of the server (and the bench) imports this file, never the others here.
// Retrieval is data in, data out: `buildIndex` makes a value from pages, `retrieve` reads it with no I/O, and
// `startKnowledge` wraps both in the reading of sources and the refresh timer.

import { withoutCredentials } from './crawl-fetch.ts';
import { readFolder } from './folder-source.ts';
import { isWebAddress, type Page } from './page.ts';
import {
  explain,
  type Question,
  type RetrievalLimits,
  retrieve,
  type ScoredPassage,
  type SearchWordsReason,
  searchWordsReason,
} from './retrieve.ts';
import { buildIndex, INDEX_BUDGET, type IndexBudget, type KnowledgeIndex } from './search-index.ts';
import { type CrawlLimits, readSitemap } from './sitemap-source.ts';

export { filePage } from './folder-source.ts';
export { formatMaterial, MATERIAL_PREAMBLE, type Material } from './material.ts';
export type { Page } from './page.ts';
export { type Question, RETRIEVAL_LIMITS, retrieve, type SearchWordsReason, searchWordsReason } from './retrieve.ts';
export { buildIndex, type KnowledgeIndex } from './search-index.ts';

/** One entry of the site's `knowledge:` list: a folder published at `url`, or a sitemap. */
export type KnowledgeSource = { path: string; url: string; language?: string } | { sitemap: string; language?: string };

export interface KnowledgeOptions extends CrawlLimits, IndexBudget {
  /** How often every source is read again; the old index answers until the new one is built. */
  refreshIntervalMs: number;
  /**
   * How long the first build waits for every page: past it, the pages in so far are indexed and answer, and the
   * stragglers join when the build ends.
   */
  firstIndexMs: number;
  /** A page's language when it does not say (no `lang` attribute or front matter). */
  language: string;
  log: (line: string) => void;
}

const KNOWLEDGE_DEFAULTS: KnowledgeOptions = {
  userAgent: 'AIAssistantBot',
  maxPages: 1000,
  maxPageBytes: 2_000_000,
  concurrency: 4,
  requestTimeoutMs: 10_000,
  slowAfterMs: 3_000,
  maxRedirects: 5,
  maxSitemaps: 50,
  extractTimeoutMs: 2_000,
  maxPageNodes: 50_000,
  extractHeapMb: 256,
  ...INDEX_BUDGET,
  refreshIntervalMs: 24 * 60 * 60 * 1000,
  firstIndexMs: 60_000,
  language: 'en',
  log: (line) => console.warn(line),
};

/** The running library: the current index, its readiness, and retrieval against it. */
export interface Knowledge {
  /** Settles when the first index is built (sources that failed then count as empty); it never rejects. */
  readonly ready: Promise<void>;
  isReady(): boolean;
  /** {@link retrieve} on the current index; no passages before the first one is built. */
  retrieve(question: Question, limits?: RetrievalLimits): ScoredPassage[];
  /** {@link searchWordsReason} on the current index: why to ask a model for search words; none before it is built. */
  searchWordsReason(question: Question): SearchWordsReason | undefined;
  /** The pages' most common language, once the index is built. */
  language(): string | undefined;
  /** {@link explain} on the current index (for `npm run knowledge -- ask`); none before it is built. */
  explain(question: Question): ReturnType<typeof explain> | undefined;
  /** Reads every source again now and swaps the index when the new one is built. */
  refresh(): Promise<void>;
  /** Stops the refresh timer; the current index keeps answering. */
  stop(): void;
}

/** The source's address, or why it cannot be one: the library only links to `http:` and `https:` pages. */
function checkSource(source: KnowledgeSource): void {
  const address = 'sitemap' in source ? source.sitemap : source.url;
  if (!isWebAddress(address)) throw new Error(`knowledge: ${address} is not an http: or https: address`);
}

/**
 * Reads the sources, builds the first index and rebuilds it every `refreshIntervalMs`. A source that fails keeps the
 * pages it gave last time (none on the first build), so a site that is down for a moment empties nothing.
 */
export function startKnowledge(
  sources: readonly KnowledgeSource[],
  options: Partial<KnowledgeOptions> = {},
): Knowledge {
  const given = { ...KNOWLEDGE_DEFAULTS, ...options };
  // No log line carries an address's credentials, whichever part of the library writes it.
  const settings = { ...given, log: (line: string) => given.log(withoutCredentials(line)) };
  sources.forEach(checkSource);
  const lastPages = new Map<KnowledgeSource, Page[]>();
  let index: KnowledgeIndex | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  let earlyIndexed = () => {};
  const earlyIndex = new Promise<void>((resolve) => {
    earlyIndexed = resolve;
  });

  /** `found` receives a sitemap's pages as they come in, for a first index that cannot wait for them all. */
  const readSource = async (source: KnowledgeSource, found: Page[]): Promise<Page[]> => {
    const language = source.language ?? settings.language;
    try {
      const pages =
        'sitemap' in source
          ? await readSitemap(source.sitemap, language, settings, settings.log, found)
          : await readFolder(source.path, source.url, language, settings.log);
      lastPages.set(source, pages);
      return pages;
    } catch (error) {
      settings.log(
        `knowledge: ${'sitemap' in source ? source.sitemap : source.path} was not read: ${(error as Error).message}`,
      );
      return lastPages.get(source) ?? [];
    }
  };

  /** Swaps in an index of `pages`; an early one (of the pages in so far) only while there is none. */
  const publish = async (pages: Page[], early = false) => {
    const built = await buildIndex(pages, settings, settings.log);
    if (early && index !== undefined) return;
    index = built;
    if (early) earlyIndexed();
    const note = early ? '; the pages still coming join when they are in' : '';
    settings.log(`knowledge: ${pages.length} pages, ${built.passages.length} passages indexed${note}`);
  };

  const rebuild = async () => {
    const found = sources.map((): Page[] => []);
    const timer =
      index === undefined
        ? setTimeout(() => {
            if (index === undefined) void publish(found.flat(), true).catch(() => {});
          }, settings.firstIndexMs)
        : undefined;
    try {
      await publish((await Promise.all(sources.map((source, n) => readSource(source, found[n])))).flat());
    } finally {
      clearTimeout(timer);
    }
  };

  const refresh = (): Promise<void> => {
    running ??= rebuild()
      .catch((error: Error) => settings.log(`knowledge: the index was not rebuilt: ${error.message}`))
      .finally(() => {
        running = undefined;
        if (!stopped) {
          clearTimeout(timer);
          timer = setTimeout(refresh, settings.refreshIntervalMs).unref();
        }
      });
    return running;
  };

  // Settles with the first index: when every page is in, or when the first build has waited its time for them.
  const ready = Promise.race([refresh(), earlyIndex]);
  return {
    ready,
    isReady: () => index !== undefined,
    retrieve: (question, limits) => (index ? retrieve(index, question, limits) : []),
    searchWordsReason: (question) => (index ? searchWordsReason(index, question) : undefined),
    language: () => index?.language,
    explain: (question) => (index ? explain(index, question) : undefined),
    refresh,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
