import type { Page } from '../sources/page.ts';
import { INDEX_BUDGET, type IndexBudget, pagesOf, preparePage } from '../workers/index-budget.ts';
import { chunkPage, type Passage } from './chunk.ts';
import { PassageSearch } from './passage-search.ts';
import { slicer } from './slice.ts';
import { DEFAULT_LANGUAGE, ruleLanguage } from './tokenize.ts';

/** The index: a value built from the pages, read by {@link retrieve}. Nothing in it changes after it is built. */
export interface KnowledgeIndex {
  readonly passages: readonly Passage[];
  readonly search: PassageSearch;
  /** In how many passages each term occurs: the relevance rule weighs a question's words by their rarity. */
  readonly documentFrequency: ReadonlyMap<string, number>;
  /** The languages (their rules' names) of the passages: a question is matched against each with its rules. */
  readonly languages: readonly string[];
  /** The passages' most common language: the one a model is asked to give search words in. */
  readonly language: string;
}

/**
 * The shape of a kept index (see {@link indexToKeep}): one of another shape is built again rather than misread. 4: the
 * owner's keywords are a field, and a passage's address may carry its section's `#id` (issue 35). 5: MiniSearch's
 * index term by term (passage-search.ts), not each passage's terms to add again (5 s to load at 10,000 pages, not 1.5).
 * 6: a name joined by underscores is a term too, and "mine", "yours", "ours" are stop words (issue 35).
 */
export const INDEX_FORMAT = 6;

/** One indexed passage's terms by field (title, keywords, headings, text), each list joined by spaces. */
type FieldTerms = [title: string, keywords: string, headings: string, text: string];

/** The index's languages: each rule language's name, and the most common one (the pages' language). */
function languagesOf(passages: readonly Passage[]) {
  const counts = new Map<string, number>();
  for (const passage of passages) {
    const language = ruleLanguage(passage.language);
    counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  const [language] = [...counts].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0] ?? [DEFAULT_LANGUAGE];
  return { languages: [...counts.keys()].sort(byText), language };
}

/** An index being built, passage by passage, from text cut into terms. */
function indexBuilder() {
  const passages: Passage[] = [];
  const search = new PassageSearch();
  const documentFrequency = new Map<string, number>();
  return {
    documentFrequency,
    add(passage: Passage, fields: FieldTerms, terms: Iterable<string>) {
      const id = passages.push(passage) - 1;
      for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      const [title, keywords, headings, text] = fields;
      search.add({ id, title, keywords, headings, text, language: ruleLanguage(passage.language) });
    },
    index: (): KnowledgeIndex => ({ passages, search, documentFrequency, ...languagesOf(passages) }),
  };
}

/** The pages a kept index's budget left out: its first line. */
export function leftOutOf(kept: string): string[] {
  const end = kept.indexOf('\n');
  return JSON.parse(end === -1 ? kept : kept.slice(0, end));
}

/**
 * The index that {@link indexToKeep} kept, over the same passages in the same order: no word is cut again, and it
 * yields as building does. It throws when the text does not match the passages (the caller builds anew).
 */
export async function indexFromKept(text: string, passages: readonly Passage[]): Promise<KnowledgeIndex> {
  const lines = text.split('\n');
  const left = new Set(leftOutOf(lines[0]));
  const kept = passages.filter((passage) => !left.has(passage.page));
  const documentFrequency = new Map<string, number>();
  const search = await PassageSearch.fromLines(lines, 1, kept, documentFrequency, slicer());
  return { passages: kept, search, documentFrequency, ...languagesOf(kept) };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Builds the index from the pages. Pages are taken in order of address (a code-unit comparison, not the locale's), so
 * every replica that reads the same sources builds the same index, however its fetches came back. A page that would
 * take the index past `budget` is left out with a log line naming it, and the pages after it are still read.
 */
export function buildIndex(
  pages: readonly Page[],
  budget: IndexBudget = INDEX_BUDGET,
  log: (line: string) => void = () => {},
): Promise<KnowledgeIndex> {
  const ordered = [...pages].sort((a, b) => byText(a.url, b.url) || byText(a.title, b.title));
  return indexPassages(ordered.flatMap(chunkPage), budget, log);
}

/**
 * Builds the index from passages already cut (a store keeps them, so a start re-chunks no page), in the order given:
 * {@link buildIndex}'s, by page address.
 */
export async function indexPassages(
  passages: readonly Passage[],
  budget: IndexBudget = INDEX_BUDGET,
  log: (line: string) => void = () => {},
): Promise<KnowledgeIndex> {
  return (await budgetedIndex(passages, budget, log)).index;
}

/**
 * {@link indexPassages}, with the text that keeps the index for {@link indexFromKept}: a line naming the pages the
 * budget left out, then the index's own lines (passage-search.ts), written in slices as it was built.
 */
export async function indexToKeep(
  passages: readonly Passage[],
  budget: IndexBudget,
  log: (line: string) => void,
): Promise<{ index: KnowledgeIndex; kept: string }> {
  const { index, left } = await budgetedIndex(passages, budget, log);
  const lines = [JSON.stringify(left)];
  const slice = slicer();
  for (const line of index.search.lines(index.documentFrequency)) {
    lines.push(line);
    await slice();
  }
  return { index, kept: lines.join('\n') };
}

/**
 * Pages left out for one reason that the log names one by one; past them, one line counts the rest (a site of 50,000
 * pages over the text budget would otherwise write 20,000 lines).
 */
const NAMED_SKIPS = 10;

/** The index of the passages that fit `budget`, page by page, and the pages left out. */
async function budgetedIndex(
  passages: readonly Passage[],
  budget: IndexBudget,
  log: (line: string) => void,
): Promise<{ index: KnowledgeIndex; left: string[] }> {
  const builder = indexBuilder();
  const left: string[] = [];
  const totals = { chars: 0, count: 0, documentFrequency: builder.documentFrequency };
  const slice = slicer();
  const skipped = new Map<string, number>();
  for (const page of pagesOf(passages)) {
    const prepared = await preparePage(page, totals, budget, slice);
    const { over } = prepared;
    if (over !== undefined) {
      const count = (skipped.get(over) ?? 0) + 1;
      skipped.set(over, count);
      if (count <= NAMED_SKIPS) log(`[knowledge] skipped ${page[0].page}: the index would hold more than ${over}`);
      left.push(page[0].page);
      continue;
    }
    totals.chars += prepared.chars;
    totals.count += prepared.prepared.length;
    for (const { passage, terms, headings, text } of prepared.prepared) {
      builder.add(passage, [prepared.title, prepared.keywords, headings.join(' '), text.join(' ')], terms);
      await slice();
    }
  }
  for (const [over, count] of skipped) {
    if (count > NAMED_SKIPS)
      log(`[knowledge] skipped ${count - NAMED_SKIPS} more pages: the index would hold more than ${over}`);
  }
  return { index: builder.index(), left };
}
