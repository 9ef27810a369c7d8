// The knowledge room's one entry: the rest of the server imports this file, never the others here. Inside, by job:
// library/ finds passages (data in, data out), sources/ reads the site's pages, workers/ are the threads that cut them,
// store/ keeps them (files or PostgreSQL), sync/ brings the store up to date and runs the library over it.

export {
  CRAWL_DEFAULTS,
  DEFAULT_INDEX_TEXT_MILLIONS,
  formatMaterial,
  INDEX_BUDGET,
  type IndexBudget,
  indexBudgetFor,
  type KnowledgeSource,
  MATERIAL_PREAMBLE,
  type Material,
  oneLine,
  type Question,
  RETRIEVAL_LIMITS,
  type RetrievalLimits,
  type SearchWordsReason,
  sourceKey,
} from './library/library.ts';
export {
  type KnowledgeSnapshot,
  type KnowledgeStore,
  openKnowledgeStore,
  type StoreSettings,
} from './store/knowledge-store.ts';
export {
  type Knowledge,
  type KnowledgeOptions,
  leftOutOfKeptIndex,
  startKnowledge,
  syncOnce,
} from './sync/knowledge-sync.ts';
export { progressLines } from './sync/progress.ts';
