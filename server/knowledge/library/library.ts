// The library's door, for the rest of the knowledge room (its sync and its store): retrieval is data in, data out
// (`buildIndex` or `indexPassages` makes a value from pages, `retrieve` reads it with no I/O), and the sources' readers
// say what became of each page, for a sync (../sync/) to keep. Other rooms use the room's entry, ../knowledge.ts.

import { isWebAddress } from '../sources/page.ts';
import type { CrawlLimits } from '../sources/sitemap-source.ts';
import { INDEX_BUDGET } from '../workers/index-budget.ts';

export { withoutCredentials } from '../sources/crawl-fetch.ts';
export { bytesHash, type FileOutcome, filePage, type KnownFile, readFolder } from '../sources/folder-source.ts';
export { oneLine, type Page, readingHash, readThisWay } from '../sources/page.ts';
export {
  type CrawlLimits,
  type KnownPage,
  type PageOutcome,
  RECHECK_MS,
  readSitemap,
  type SitemapRead,
  type SyncContext,
} from '../sources/sitemap-source.ts';
export {
  DEFAULT_INDEX_TEXT_MILLIONS,
  INDEX_BUDGET,
  type IndexBudget,
  indexBudgetFor,
} from '../workers/index-budget.ts';
export { keptInWorker } from '../workers/index-in-worker.ts';
export type { Passage } from './chunk.ts';
export { chunkPage } from './chunk.ts';
export { explain, type FollowUpRule, searchWordsReason } from './explain.ts';
export { formatMaterial, MATERIAL_PREAMBLE, type Material } from './material.ts';
export { RETRIEVAL_LIMITS, type RetrievalLimits } from './retrieval-limits.ts';
export { type Question, retrieve, type SearchWordsReason, saysNone } from './retrieve.ts';
export {
  buildIndex,
  INDEX_FORMAT,
  indexFromKept,
  indexPassages,
  indexToKeep,
  type KnowledgeIndex,
  leftOutOf,
} from './search-index.ts';
export { siteDescription } from './site-description.ts';
export { slicer } from './slice.ts';
export type { ScoredPassage } from './weigh.ts';

/** One entry of the site's `knowledge:` list: a folder published at `url`, or a sitemap. */
export type KnowledgeSource =
  | { path: string; url: string; language?: string }
  | { sitemap: string; language?: string; maxPages?: number };

/** A source's name in the store, the log and the report: its sitemap's address or its folder's path. */
export const sourceKey = (source: KnowledgeSource) => ('sitemap' in source ? source.sitemap : source.path);

/** The crawl's limits when the site's file sets none. */
export const CRAWL_DEFAULTS: CrawlLimits = {
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
  maxPageTerms: INDEX_BUDGET.maxPageTerms,
};

/** The source's address, or why it cannot be one: the library only links to `http:` and `https:` pages. */
export function checkSource(source: KnowledgeSource): void {
  const address = 'sitemap' in source ? source.sitemap : source.url;
  if (!isWebAddress(address)) throw new Error(`knowledge: ${address} is not an http: or https: address`);
}
