import { setImmediate as nextTurn } from 'node:timers/promises';
import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import { chunkPage, type Passage } from './chunk.ts';
import type { Page } from './page.ts';
import { DEFAULT_LANGUAGE, ruleLanguage, tokenize } from './tokenize.ts';

/** A passage as MiniSearch holds it: each field already cut into the terms of the passage's language. */
interface IndexedPassage {
  id: number;
  title: string;
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

/** A page's title and headings count above its body text. */
const FIELD_BOOST = { title: 3, headings: 2, text: 1 };

/** Passages are added in slices this size, with a turn of the event loop between, so chat requests are never held up. */
const SLICE = 16;

/** Terms are cut before MiniSearch sees them (per language), so it only splits on the spaces that join them. */
const splitTerms = (text: string) => text.split(' ');
const keepTerm = (term: string) => term || null;

/** The options every index is built, loaded and searched with: the same for adding and searching. */
const SEARCH_OPTIONS: Options<IndexedPassage> = {
  fields: ['title', 'headings', 'text'],
  tokenize: splitTerms,
  processTerm: keepTerm,
  searchOptions: { boost: FIELD_BOOST, prefix: false, fuzzy: false, combineWith: 'OR' },
};

const emptySearch = () => new MiniSearch<IndexedPassage>(SEARCH_OPTIONS);

/** The shape of {@link IndexData}: a kept index of another shape is built again rather than misread. */
export const INDEX_FORMAT = 1;

/** An index as plain data, kept beside its passages: loading it is much faster than indexing them again (bench). */
export interface IndexData {
  search: AsPlainObject;
  documentFrequency: [string, number][];
  language: string;
}

export const indexData = (index: KnowledgeIndex): IndexData => ({
  search: index.search.toJSON(),
  documentFrequency: [...index.documentFrequency],
  language: index.language,
});

/** The index that {@link indexData} kept, over the same passages in the same order. */
export async function indexFromData(data: IndexData, passages: readonly Passage[]): Promise<KnowledgeIndex> {
  const search = await MiniSearch.loadJSAsync<IndexedPassage>(data.search, SEARCH_OPTIONS);
  return { passages, search, documentFrequency: new Map(data.documentFrequency), language: data.language };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Builds the index from the pages. Pages are taken in order of address (a code-unit comparison, not the locale's), so
 * every replica that reads the same sources builds the same index, however its fetches came back.
 */
export function buildIndex(pages: readonly Page[]): Promise<KnowledgeIndex> {
  const ordered = [...pages].sort((a, b) => byText(a.url, b.url) || byText(a.title, b.title));
  return indexPassages(ordered.flatMap(chunkPage));
}

/**
 * Builds the index from passages already cut (a store keeps them, so a start re-chunks no page), in the order given:
 * {@link buildIndex}'s, by page address.
 */
export async function indexPassages(passages: readonly Passage[]): Promise<KnowledgeIndex> {
  const search = emptySearch();
  const documentFrequency = new Map<string, number>();
  const languages = new Map<string, number>();
  let added: IndexedPassage[] = [];
  // The passages of a page follow each other and share its title: it is cut into terms once per page.
  let titleOf: { title: string; language: string; terms: string[] } | undefined;
  for (const [id, passage] of passages.entries()) {
    if (titleOf?.title !== passage.title || titleOf.language !== passage.language) {
      titleOf = { title: passage.title, language: passage.language, terms: tokenize(passage.title, passage.language) };
    }
    const titleTerms = titleOf.terms;
    const headings = tokenize(passage.headings.join(' '), passage.language);
    const text = tokenize(passage.text, passage.language);
    for (const term of new Set([...titleTerms, ...headings, ...text])) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
    added.push({ id, title: titleTerms.join(' '), headings: headings.join(' '), text: text.join(' ') });
    const language = ruleLanguage(passage.language);
    languages.set(language, (languages.get(language) ?? 0) + 1);
    if (added.length >= SLICE) {
      search.addAll(added);
      added = [];
      await nextTurn();
    }
  }
  search.addAll(added);
  const [language] = [...languages].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0] ?? [DEFAULT_LANGUAGE];
  return { passages, search, documentFrequency, language };
}
