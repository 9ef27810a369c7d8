import { setImmediate as nextTurn } from 'node:timers/promises';
import MiniSearch from 'minisearch';
import { chunkPage, type Passage } from './chunk.ts';
import type { Page } from './page.ts';
import { DEFAULT_LANGUAGE, ruleLanguage, tokenize } from './tokenize.ts';

/** A passage as MiniSearch holds it: each field already cut into the terms of the passage's language. */
interface IndexedPassage {
  id: number;
  title: string;
  keywords: string;
  headings: string;
  text: string;
}

/** The index: a value built from the pages, read by {@link retrieve}. Nothing in it changes after it is built. */
export interface KnowledgeIndex {
  readonly passages: readonly Passage[];
  readonly search: MiniSearch<IndexedPassage>;
  /** In how many passages each term occurs: the relevance rule weighs a question's words by their rarity. */
  readonly documentFrequency: ReadonlyMap<string, number>;
  /** The pages' most common language: the question's, unless its script or the caller says otherwise. */
  readonly language: string;
}

/** A page's title (and the keywords its owner adds, as synonyms of it) and headings count above its body text. */
const FIELD_BOOST = { title: 3, keywords: 3, headings: 2, text: 1 };

/** Passages are added in slices this size, with a turn of the event loop between, so chat requests are never held up. */
const SLICE = 16;

/** Terms are cut before MiniSearch sees them (per language), so it only splits on the spaces that join them. */
const splitTerms = (text: string) => text.split(' ');
const keepTerm = (term: string) => term || null;

/** An empty index, and the one that every query of a build reads: the same options for adding and searching. */
function emptySearch(): MiniSearch<IndexedPassage> {
  return new MiniSearch<IndexedPassage>({
    fields: ['title', 'keywords', 'headings', 'text'],
    tokenize: splitTerms,
    processTerm: keepTerm,
    searchOptions: { boost: FIELD_BOOST, prefix: false, fuzzy: false, combineWith: 'OR' },
  });
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Builds the index from the pages. Pages are taken in order of address (a code-unit comparison, not the locale's), so
 * every replica that reads the same sources builds the same index, however its fetches came back.
 */
export async function buildIndex(pages: readonly Page[]): Promise<KnowledgeIndex> {
  const ordered = [...pages].sort((a, b) => byText(a.url, b.url) || byText(a.title, b.title));
  const passages: Passage[] = [];
  const search = emptySearch();
  const documentFrequency = new Map<string, number>();
  const languages = new Map<string, number>();
  let sliced = 0;
  for (const page of ordered) {
    const added: IndexedPassage[] = [];
    // Every passage of a page has its title and language: the title is cut into terms once.
    const titleTerms = tokenize(page.title, page.language);
    const title = titleTerms.join(' ');
    const keywordTerms = tokenize(page.keywords ?? '', page.language);
    const keywords = keywordTerms.join(' ');
    for (const passage of chunkPage(page)) {
      const id = passages.push(passage) - 1;
      const headings = tokenize(passage.headings.join(' '), passage.language);
      const text = tokenize(passage.text, passage.language);
      for (const term of new Set([...titleTerms, ...keywordTerms, ...headings, ...text])) {
        documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      }
      added.push({ id, title, keywords, headings: headings.join(' '), text: text.join(' ') });
    }
    const language = ruleLanguage(page.language);
    languages.set(language, (languages.get(language) ?? 0) + added.length);
    search.addAll(added);
    sliced += added.length;
    if (sliced >= SLICE) {
      sliced = 0;
      await nextTurn();
    }
  }
  const [language] = [...languages].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0] ?? [DEFAULT_LANGUAGE];
  return { passages, search, documentFrequency, language };
}
