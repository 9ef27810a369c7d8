import { setImmediate as nextTurn } from 'node:timers/promises';
import MiniSearch from 'minisearch';
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

/** An empty index, and the one that every query of a build reads: the same options for adding and searching. */
function emptySearch(): MiniSearch<IndexedPassage> {
  return new MiniSearch<IndexedPassage>({
    fields: ['title', 'keywords', 'headings', 'text'],
    tokenize: splitTerms,
    processTerm: keepTerm,
    storeFields: ['language'],
    searchOptions: { boost: FIELD_BOOST, prefix: false, fuzzy: false, combineWith: 'OR' },
  });
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A page's passages with their terms, before they are added; what it would add to the index's totals. */
async function preparePage(page: Page, known: ReadonlyMap<string, number>, slice: ReturnType<typeof slicer>) {
  const passages = chunkPage(page);
  // Every passage of a page has its title and language: the title (as cut to its longest) is cut into terms once.
  const titleTerms = passages.length > 0 ? tokenize(passages[0].title, page.language) : [];
  // The owner's keywords count like the title, so they are capped like it: a page cannot fill the index through them.
  const keywordTerms = tokenize(capLine(page.keywords ?? ''), page.language);
  const language = ruleLanguage(page.language);
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
export async function buildIndex(
  pages: readonly Page[],
  budget: IndexBudget = INDEX_BUDGET,
  log: (line: string) => void = () => {},
): Promise<KnowledgeIndex> {
  const ordered = [...pages].sort((a, b) => byText(a.url, b.url) || byText(a.title, b.title));
  const passages: Passage[] = [];
  const search = emptySearch();
  const documentFrequency = new Map<string, number>();
  const languages = new Map<string, number>();
  let chars = 0;
  const slice = slicer();
  for (const page of ordered) {
    const prepared = await preparePage(page, documentFrequency, slice);
    const over =
      chars + prepared.chars > budget.maxTextChars
        ? `${budget.maxTextChars} characters of text`
        : passages.length + prepared.prepared.length > budget.maxPassages
          ? `${budget.maxPassages} passages`
          : documentFrequency.size + prepared.newTerms > budget.maxTerms
            ? `${budget.maxTerms} distinct terms`
            : undefined;
    if (over) {
      log(`knowledge: skipped ${page.url}: the index would hold more than ${over}`);
      continue;
    }
    chars += prepared.chars;
    languages.set(prepared.language, (languages.get(prepared.language) ?? 0) + prepared.prepared.length);
    for (const { passage, terms, headings, text } of prepared.prepared) {
      const id = passages.push(passage) - 1;
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
  return { passages, search, documentFrequency, languages: [...languages.keys()].sort(byText), language };
}
