import MiniSearch, { type Options } from 'minisearch';
import { chunkPage, type Passage } from './chunk.ts';
import { INDEX_BUDGET, type IndexBudget, pagesOf, preparePage } from './index-budget.ts';
import type { Page } from './page.ts';
import { slicer } from './slice.ts';
import { DEFAULT_LANGUAGE, ruleLanguage } from './tokenize.ts';

/** A passage as MiniSearch holds it: each field already cut into the terms of the passage's language. */
interface IndexedPassage {
  id: number;
  title: string;
  keywords: string;
  headings: string;
  text: string;
  /** The rule language of the passage, so that a search can keep to one language's passages. */
  language: string;
}

/** The index: a value built from the pages, read by {@link retrieve}. Nothing in it changes after it is built. */
export interface KnowledgeIndex {
  readonly passages: readonly Passage[];
  readonly search: MiniSearch<IndexedPassage>;
  /** In how many passages each term occurs: the relevance rule weighs a question's words by their rarity. */
  readonly documentFrequency: ReadonlyMap<string, number>;
  /** The languages (their rules' names) of the passages: a question is matched against each with its rules. */
  readonly languages: readonly string[];
  /** The passages' most common language: the one a model is asked to give search words in. */
  readonly language: string;
}

/** A page's title (and the keywords its owner adds, as synonyms of it) and headings count above its body text. */
const FIELD_BOOST = { title: 3, keywords: 3, headings: 2, text: 1 };

/** Terms are cut before MiniSearch sees them (per language), so it only splits on the spaces that join them. */
const splitTerms = (text: string) => text.split(' ');
const keepTerm = (term: string) => term || null;

/** The options every index is built, loaded and searched with: the same for adding and searching. */
const SEARCH_OPTIONS: Options<IndexedPassage> = {
  fields: ['title', 'keywords', 'headings', 'text'],
  tokenize: splitTerms,
  processTerm: keepTerm,
  storeFields: ['language'],
  searchOptions: { boost: FIELD_BOOST, prefix: false, fuzzy: false, combineWith: 'OR' },
};

const emptySearch = () => new MiniSearch<IndexedPassage>(SEARCH_OPTIONS);

/**
 * The shape of a kept index (see {@link indexToKeep}): one of another shape is built again rather than misread. 3: the
 * passages' terms, not MiniSearch's JSON (whose objects keyed by passage number took 1.2 GB and a 17 s stall to write
 * for one page of 200,000 unique words). 4: the owner's keywords are a field, and a passage's address may carry its
 * section's `#id` (issue 35). 5: a name joined by underscores is a term too, and "mine", "yours", "ours" are stop words.
 */
export const INDEX_FORMAT = 5;

/**
 * One indexed passage's terms by field (title, keywords, headings, text), each list joined by spaces, as MiniSearch got
 * them.
 */
type FieldTerms = [title: string, keywords: string, headings: string, text: string];

/**
 * An index being built, passage by passage: from text cut into terms now, or from the terms a kept index holds.
 * Without `search`, only the terms are counted (the index worker's part: the index itself is built where it is read).
 */
function indexBuilder(search = true) {
  const passages: Passage[] = [];
  const index = emptySearch();
  const documentFrequency = new Map<string, number>();
  // Each language with its count of passages: the most common one is the pages' language.
  const languages = new Map<string, number>();
  return {
    documentFrequency,
    add(passage: Passage, fields: FieldTerms, terms: Iterable<string>) {
      const id = passages.push(passage) - 1;
      const language = ruleLanguage(passage.language);
      languages.set(language, (languages.get(language) ?? 0) + 1);
      for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      const [title, keywords, headings, text] = fields;
      if (search) index.add({ id, title, keywords, headings, text, language });
    },
    index: (): KnowledgeIndex => {
      const [language] = [...languages].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0] ?? [DEFAULT_LANGUAGE];
      return {
        passages,
        search: index,
        documentFrequency,
        languages: [...languages.keys()].sort(byText),
        language,
      };
    },
  };
}

/**
 * The index that {@link indexToKeep} kept, over the same passages in the same order: no word is cut again, and it
 * yields as building does. It throws when the text does not match the passages (the caller builds anew).
 */
export async function indexFromKept(text: string, passages: readonly Passage[]): Promise<KnowledgeIndex> {
  const lines = text.split('\n');
  const left = new Set(JSON.parse(lines[0]) as string[]);
  const kept = passages.filter((passage) => !left.has(passage.page));
  if (lines.length - 1 !== kept.length) throw new Error('the kept index does not match the passages');
  const builder = indexBuilder();
  const slice = slicer();
  for (const [n, passage] of kept.entries()) {
    const fields = JSON.parse(lines[n + 1]) as FieldTerms;
    builder.add(passage, fields, new Set(fields.join(' ').split(' ').filter(Boolean)));
    await slice();
  }
  return builder.index();
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
 * budget left out, then each indexed passage's terms, written as the passages are added (no pass over the whole index
 * holds the thread).
 */
export async function indexToKeep(
  passages: readonly Passage[],
  budget: IndexBudget,
  log: (line: string) => void,
): Promise<{ index: KnowledgeIndex; kept: string }> {
  const lines: string[] = [];
  const { index, left } = await budgetedIndex(passages, budget, log, (fields) => lines.push(JSON.stringify(fields)));
  return { index, kept: [JSON.stringify(left), ...lines].join('\n') };
}

/**
 * The text {@link indexToKeep} gives, without building the index it keeps: what the index worker does (see
 * index-in-worker.ts), so that cutting words into terms takes none of the thread that serves chat.
 */
export async function keptTerms(
  passages: readonly Passage[],
  budget: IndexBudget,
  log: (line: string) => void,
): Promise<string> {
  const lines: string[] = [];
  const keep = (fields: FieldTerms) => lines.push(JSON.stringify(fields));
  const { left } = await budgetedIndex(passages, budget, log, keep, false);
  return [JSON.stringify(left), ...lines].join('\n');
}

/** The index of the passages that fit `budget`, page by page, and the pages left out; `keep` sees each one added. */
async function budgetedIndex(
  passages: readonly Passage[],
  budget: IndexBudget,
  log: (line: string) => void,
  keep: (fields: FieldTerms) => void = () => {},
  search = true,
): Promise<{ index: KnowledgeIndex; left: string[] }> {
  const builder = indexBuilder(search);
  const left: string[] = [];
  const totals = { chars: 0, count: 0, documentFrequency: builder.documentFrequency };
  const slice = slicer();
  for (const page of pagesOf(passages)) {
    const prepared = await preparePage(page, totals, budget, slice);
    if ('over' in prepared) {
      log(`[knowledge] skipped ${page[0].page}: the index would hold more than ${prepared.over}`);
      left.push(page[0].page);
      continue;
    }
    totals.chars += prepared.chars;
    totals.count += prepared.prepared.length;
    for (const { passage, terms, headings, text } of prepared.prepared) {
      const fields: FieldTerms = [prepared.title, prepared.keywords, headings.join(' '), text.join(' ')];
      builder.add(passage, fields, terms);
      keep(fields);
      await slice();
    }
  }
  return { index: builder.index(), left };
}
