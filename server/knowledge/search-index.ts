import { setImmediate as nextTurn } from 'node:timers/promises';
import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import { chunkPage, type Passage } from './chunk.ts';
import { capLine, type Page } from './page.ts';
import { DEFAULT_LANGUAGE, ruleLanguage, tokenize } from './tokenize.ts';

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

/**
 * What the index may hold as a whole, whatever the pages: each page is also capped on its own, but many pages under
 * that cap could still fill the server's memory. The defaults fit a 512 MB server at 10,000 ordinary pages.
 */
export interface IndexBudget {
  /** Characters of passage text. */
  maxTextChars: number;
  maxPassages: number;
  /** Distinct terms: a page of words that no other page has costs the index far more than its text. */
  maxTerms: number;
}

export const INDEX_BUDGET: IndexBudget = { maxTextChars: 60_000_000, maxPassages: 150_000, maxTerms: 250_000 };

/** A page's title (and the keywords its owner adds, as synonyms of it) and headings count above its body text. */
const FIELD_BOOST = { title: 3, keywords: 3, headings: 2, text: 1 };

/**
 * Building yields a turn of the event loop whenever it has run this long, so chat requests are never held up: a
 * passage is cut into terms and added in some milliseconds, a page of unique words in whole seconds, and a count of
 * passages between turns cannot tell the two apart.
 */
const SLICE_MS = 15;

/** Yields when the current slice has run its time; one call per passage. */
function slicer(): () => Promise<void> | undefined {
  let started = performance.now();
  return () => {
    if (performance.now() - started < SLICE_MS) return undefined;
    return nextTurn().then(() => {
      started = performance.now();
    });
  };
}

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
 * The shape of {@link IndexData}: a kept index of another shape is built again rather than misread. 2: each passage
 * stores its language, the index lists its languages, and the pages its budget left out (issue 34). 3: the owner's
 * keywords are a field, a passage's address may carry its section's `#id`, and the index keeps its most common language
 * (issue 35).
 */
export const INDEX_FORMAT = 3;

/** An index as plain data, kept beside its passages: loading it is much faster than indexing them again (bench). */
export interface IndexData {
  search: AsPlainObject;
  documentFrequency: [string, number][];
  languages: string[];
  language: string;
  /** The pages the budget left out of it (their addresses). */
  left: string[];
}

/** The index as data; `passages` are those it was built from, the budget's left-out pages included. */
export function indexData(index: KnowledgeIndex, passages: readonly Passage[]): IndexData {
  const kept = new Set(index.passages.map((passage) => passage.page));
  return {
    search: index.search.toJSON(),
    documentFrequency: [...index.documentFrequency],
    languages: [...index.languages],
    language: index.language,
    left: [...new Set(passages.filter((passage) => !kept.has(passage.page)).map((passage) => passage.page))],
  };
}

/** The index that {@link indexData} kept, over the same passages in the same order. */
export async function indexFromData(data: IndexData, passages: readonly Passage[]): Promise<KnowledgeIndex> {
  const search = await MiniSearch.loadJSAsync<IndexedPassage>(data.search, SEARCH_OPTIONS);
  const left = new Set(data.left);
  return {
    passages: passages.filter((passage) => !left.has(passage.page)),
    search,
    documentFrequency: new Map(data.documentFrequency),
    languages: data.languages,
    language: data.language,
  };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The passages in runs of one page each: they follow each other, in the order of their pages. */
function pagesOf(passages: readonly Passage[]): Passage[][] {
  const pages: Passage[][] = [];
  for (const passage of passages) {
    const last = pages.at(-1);
    if (last && last[0].page === passage.page) last.push(passage);
    else pages.push([passage]);
  }
  return pages;
}

/** A page's passages with their terms, before they are added; what they would add to the index's totals. */
async function preparePage(
  passages: readonly Passage[],
  known: ReadonlyMap<string, number>,
  slice: ReturnType<typeof slicer>,
) {
  // Every passage of a page has its title and language: the title (as cut to its longest) is cut into terms once.
  const titleTerms = tokenize(passages[0].title, passages[0].language);
  // The owner's keywords count like the title, so they are capped like it: a page cannot fill the index through them.
  const keywordTerms = tokenize(capLine(passages[0].keywords ?? ''), passages[0].language);
  const language = ruleLanguage(passages[0].language);
  const prepared = [];
  for (const passage of passages) {
    const headings = tokenize(passage.headings.join(' '), passage.language);
    const text = tokenize(passage.text, passage.language);
    prepared.push({ passage, terms: new Set([...titleTerms, ...keywordTerms, ...headings, ...text]), headings, text });
    await slice();
  }
  const newTerms = new Set<string>();
  let chars = 0;
  for (const { passage, terms } of prepared) {
    chars += passage.text.length;
    for (const term of terms) if (!known.has(term)) newTerms.add(term);
  }
  return {
    prepared,
    title: titleTerms.join(' '),
    keywords: keywordTerms.join(' '),
    language,
    chars,
    newTerms: newTerms.size,
  };
}

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
  const kept: Passage[] = [];
  const search = emptySearch();
  const documentFrequency = new Map<string, number>();
  const languages = new Map<string, number>();
  let chars = 0;
  let count = 0;
  const slice = slicer();
  for (const page of pagesOf(passages)) {
    const prepared = await preparePage(page, documentFrequency, slice);
    const over =
      chars + prepared.chars > budget.maxTextChars
        ? `${budget.maxTextChars} characters of text`
        : count + prepared.prepared.length > budget.maxPassages
          ? `${budget.maxPassages} passages`
          : documentFrequency.size + prepared.newTerms > budget.maxTerms
            ? `${budget.maxTerms} distinct terms`
            : undefined;
    if (over) {
      log(`[knowledge] skipped ${page[0].url}: the index would hold more than ${over}`);
      continue;
    }
    chars += prepared.chars;
    languages.set(prepared.language, (languages.get(prepared.language) ?? 0) + prepared.prepared.length);
    for (const { passage, terms, headings, text } of prepared.prepared) {
      const id = kept.push(passage) - 1;
      count += 1;
      for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      search.add({
        id,
        title: prepared.title,
        keywords: prepared.keywords,
        headings: headings.join(' '),
        text: text.join(' '),
        language: prepared.language,
      });
      await slice();
    }
  }
  const [language] = [...languages].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0] ?? [DEFAULT_LANGUAGE];
  return { passages: kept, search, documentFrequency, languages: [...languages.keys()].sort(byText), language };
}
