import { createHash } from 'node:crypto';
import {
  INDEX_FORMAT,
  type IndexBudget,
  indexFromKept,
  indexToKeep,
  keptInWorker,
  type Passage,
} from '../knowledge/knowledge.ts';
import type { KnowledgeSnapshot, KnowledgeStore } from '../knowledge-store/knowledge-store.ts';

/** The passages of the configured sources in the snapshot, in the order {@link buildIndex} gives them. */
export function snapshotPassages(snapshot: KnowledgeSnapshot, sources: ReadonlySet<string>): Passage[] {
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return snapshot.pages
    .filter((page) => sources.has(page.source))
    .sort((a, b) => byText(a.url, b.url) || byText(a.title, b.title))
    .flatMap((page) =>
      page.passages.map((passage) => ({
        page: page.url,
        url: page.url,
        title: page.title,
        language: page.language,
        ...passage,
      })),
    );
}

/** What names the pages an index was built from, its format and budget: a kept index with another is built again. */
function indexFingerprint(snapshot: KnowledgeSnapshot, sources: ReadonlySet<string>, budget: IndexBudget): string {
  const { maxTextChars, maxPassages, maxTerms, maxPageTerms } = budget;
  const budgets = [maxTextChars, maxPassages, maxTerms, maxPageTerms];
  const hash = createHash('sha256').update(JSON.stringify([INDEX_FORMAT, ...budgets]));
  for (const page of snapshot.pages) {
    if (sources.has(page.source))
      hash.update(`\n${page.source} ${page.address} ${page.url} ${page.title} ${page.textHash}`);
  }
  return hash.digest('base64url');
}

/**
 * The index of the snapshot's pages: the one the store keeps when it was built from the same pages (loading it is
 * much faster than indexing every passage again), else built now and kept for the next start and the other replicas.
 */
export async function storeIndex(
  store: KnowledgeStore,
  snapshot: KnowledgeSnapshot,
  sources: ReadonlySet<string>,
  settings: IndexBudget & { log: (line: string) => void },
) {
  const passages = snapshotPassages(snapshot, sources);
  const fingerprint = indexFingerprint(snapshot, sources, settings);
  const kept = await store.loadIndex();
  if (kept?.fingerprint === fingerprint) {
    try {
      return { index: await indexFromKept(kept.data, passages), kept: true };
    } catch {
      // A kept index that does not load is built again, as if there were none.
    }
  }
  // The terms are cut in a worker thread; the index is built here from them, as a start loads a kept one.
  let built: string;
  try {
    built = await keptInWorker(passages, settings, settings.log);
  } catch (error) {
    settings.log(`[knowledge] the index is built on the server's thread: ${(error as Error).message}`);
    built = (await indexToKeep(passages, settings, settings.log)).kept;
  }
  await store.saveIndex(fingerprint, built);
  return { index: await indexFromKept(built, passages), kept: false };
}
