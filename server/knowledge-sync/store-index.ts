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
  // In one order whatever the home's: a snapshot made in memory before a commit names the same pages as one loaded after.
  const key = (page: { source: string; address: string }) => `${page.source}\n${page.address}`;
  const ordered = [...snapshot.pages].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (const page of ordered) {
    if (sources.has(page.source))
      hash.update(`\n${page.source} ${page.address} ${page.url} ${page.title} ${page.textHash}`);
  }
  return hash.digest('base64url');
}

type IndexSettings = IndexBudget & { log: (line: string) => void };

/** The kept index's terms of `passages`, cut in a worker thread (on this one if the worker cannot run), and saved. */
async function keepTerms(store: KnowledgeStore, fingerprint: string, passages: Passage[], settings: IndexSettings) {
  let kept: string;
  try {
    kept = await keptInWorker(passages, settings, settings.log);
  } catch (error) {
    settings.log(`[knowledge] the index is built on the server's thread: ${(error as Error).message}`);
    kept = (await indexToKeep(passages, settings, settings.log)).kept;
  }
  await store.saveIndex(fingerprint, kept);
  return kept;
}

/**
 * Keeps the index of the snapshot's pages in the store, unless it holds it already. A sync does this before it
 * commits the pages (with the snapshot they will make), so that a replica or server that sees the commit loads it.
 */
export async function keepIndex(
  store: KnowledgeStore,
  snapshot: KnowledgeSnapshot,
  sources: ReadonlySet<string>,
  settings: IndexSettings,
) {
  const fingerprint = indexFingerprint(snapshot, sources, settings);
  if ((await store.loadIndex())?.fingerprint !== fingerprint)
    await keepTerms(store, fingerprint, snapshotPassages(snapshot, sources), settings);
}

/**
 * The index of the snapshot's pages: the one the store keeps when it was built from the same pages (loading it is
 * much faster than indexing every passage again), else built now and kept for the next start and the other replicas.
 */
export async function storeIndex(
  store: KnowledgeStore,
  snapshot: KnowledgeSnapshot,
  sources: ReadonlySet<string>,
  settings: IndexSettings,
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
  const built = await keepTerms(store, fingerprint, passages, settings);
  return { index: await indexFromKept(built, passages), kept: false };
}
