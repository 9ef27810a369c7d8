import { createHash } from 'node:crypto';
import {
  INDEX_FORMAT,
  type IndexBudget,
  indexFromKept,
  indexToKeep,
  type KnowledgeIndex,
  keptInWorker,
  leftOutOf,
  type Passage,
  slicer,
} from '../library/library.ts';
import type { KnowledgeSnapshot, KnowledgeStore } from '../store/knowledge-store.ts';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The passages of the configured sources in the snapshot, in the order {@link buildIndex} gives them. The pages are
 * sorted at once (a few ms at 10,000), their passages copied in slices.
 */
export async function snapshotPassages(snapshot: KnowledgeSnapshot, sources: ReadonlySet<string>) {
  const pages = snapshot.pages
    .filter((page) => sources.has(page.source))
    .sort((a, b) => byText(a.url, b.url) || byText(a.title, b.title));
  const passages: Passage[] = [];
  const slice = slicer();
  for (const { url, title, language, passages: kept } of pages) {
    for (const passage of kept) passages.push({ page: url, url, title, language, ...passage });
    await slice();
  }
  return passages;
}

/** What names the pages an index was built from, its format and budget: a kept index with another is built again. */
async function indexFingerprint(snapshot: KnowledgeSnapshot, sources: ReadonlySet<string>, budget: IndexBudget) {
  const { maxTextChars, maxPassages, maxTerms, maxPageTerms } = budget;
  const budgets = [maxTextChars, maxPassages, maxTerms, maxPageTerms];
  const hash = createHash('sha256').update(JSON.stringify([INDEX_FORMAT, ...budgets]));
  // In one order whatever the home's: a snapshot made in memory before a commit names the same pages as one loaded after.
  const pages = snapshot.pages
    .filter((page) => sources.has(page.source))
    .map((page) => ({ key: `${page.source}\n${page.address}`, page }))
    .sort((a, b) => byText(a.key, b.key));
  const slice = slicer();
  for (const { page } of pages) {
    hash.update(`\n${page.source} ${page.address} ${page.url} ${page.title} ${page.textHash}`);
    await slice();
  }
  return hash.digest('base64url');
}

/**
 * The pages that the index's budget left out of the store's kept index, when it was built from the snapshot's pages
 * under `budget`; `undefined` when the store keeps no index of them (none yet, or one of other pages or budget).
 */
export async function leftOutOfKeptIndex(
  store: KnowledgeStore,
  snapshot: KnowledgeSnapshot,
  sources: ReadonlySet<string>,
  budget: IndexBudget,
): Promise<ReadonlySet<string> | undefined> {
  const kept = await store.loadIndex();
  if (kept?.fingerprint !== (await indexFingerprint(snapshot, sources, budget))) return undefined;
  return new Set(leftOutOf(kept.data));
}

type IndexSettings = IndexBudget & { log: (line: string) => void };

/**
 * The index of `passages`, built in a worker thread and saved as the store's kept index. The index itself comes with
 * the answer only when the worker could not run and it was built on this thread; else it is read from the kept text.
 */
async function buildAndKeep(store: KnowledgeStore, fingerprint: string, passages: Passage[], settings: IndexSettings) {
  let built: { kept: string; index?: KnowledgeIndex };
  try {
    built = { kept: await keptInWorker(passages, settings, settings.log) };
  } catch (error) {
    settings.log(`[knowledge] the index is built on the server's thread: ${(error as Error).message}`);
    built = await indexToKeep(passages, settings, settings.log);
  }
  // A kept index only saves the next start some work: one that cannot be written (a full disk) is built again then.
  await store
    .saveIndex(fingerprint, built.kept)
    .catch((error: Error) =>
      settings.log(`[knowledge] the index could not be kept in ${store.home}: ${error.message}`),
    );
  return built;
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
  const fingerprint = await indexFingerprint(snapshot, sources, settings);
  if ((await store.loadIndex())?.fingerprint !== fingerprint)
    await buildAndKeep(store, fingerprint, await snapshotPassages(snapshot, sources), settings);
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
  const passages = await snapshotPassages(snapshot, sources);
  const fingerprint = await indexFingerprint(snapshot, sources, settings);
  const kept = await store.loadIndex();
  if (kept?.fingerprint === fingerprint) {
    try {
      return { index: await indexFromKept(kept.data, passages), kept: true };
    } catch {
      // A kept index that does not load is built again, as if there were none.
    }
  }
  // The index is built in a worker thread and read here from its text, as a start loads a kept one.
  const built = await buildAndKeep(store, fingerprint, passages, settings);
  return { index: built.index ?? (await indexFromKept(built.kept, passages)), kept: false };
}

/** Each index's page addresses, worked out when first asked for (a vote's pages are looked up among them). */
const pageLists = new WeakMap<KnowledgeIndex, readonly string[]>();
export function pagesOf(index: KnowledgeIndex): readonly string[] {
  let pages = pageLists.get(index);
  if (!pages) {
    pages = [...new Set(index.passages.map(({ url }) => url.replace(/#.*$/s, '')))];
    pageLists.set(index, pages);
  }
  return pages;
}
