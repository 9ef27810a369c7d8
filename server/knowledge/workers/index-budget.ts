// An index's budget as a whole (what a page may add before it is left out), and a page's passages cut into terms
// against it: the part of building an index that decides what goes in (search-index.ts adds what does).
import type { Passage } from '../library/chunk.ts';
import { tokenize } from '../library/tokenize.ts';
import { capLine } from '../sources/page.ts';

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
  /**
   * Distinct terms of one page: an ordinary page has a few thousand, and a page of unique words past this is refused
   * before it costs the index (about 1 KB a term, twice while the next index is built) or seconds of stemming.
   */
  maxPageTerms: number;
}

export const INDEX_BUDGET: IndexBudget = {
  maxTextChars: 60_000_000,
  maxPassages: 150_000,
  maxTerms: 250_000,
  maxPageTerms: 25_000,
};

/** The default budget's text, in millions of characters: what `KNOWLEDGE_INDEX_TEXT` sets. */
export const DEFAULT_INDEX_TEXT_MILLIONS = INDEX_BUDGET.maxTextChars / 1e6;

/**
 * The budget of an index of `millions` of characters of text, its passages and distinct terms in the default's
 * proportion (one page's terms stay capped as they are). The index holds about 6 bytes of heap a character.
 */
export function indexBudgetFor(millions: number): IndexBudget {
  const scale = millions / DEFAULT_INDEX_TEXT_MILLIONS;
  return {
    maxTextChars: millions * 1e6,
    maxPassages: Math.round(INDEX_BUDGET.maxPassages * scale),
    maxTerms: Math.round(INDEX_BUDGET.maxTerms * scale),
    maxPageTerms: INDEX_BUDGET.maxPageTerms,
  };
}

/** The passages in runs of one page each: they follow each other, in the order of their pages. */
export function pagesOf(passages: readonly Passage[]): Passage[][] {
  const pages: Passage[][] = [];
  for (const passage of passages) {
    const last = pages.at(-1);
    if (last && last[0].page === passage.page) last.push(passage);
    else pages.push([passage]);
  }
  return pages;
}

/** What the index holds so far, against its budget. */
export interface Totals {
  chars: number;
  count: number;
  documentFrequency: ReadonlyMap<string, number>;
}

/**
 * A page's passages with their terms, before they are added; or the budget it would cross. Its text and passages are
 * counted first, and its terms as they are cut: a page of unique words is refused once it crosses the budget, not
 * after all its words are cut and held (200,000 of them take seconds and hundreds of MB).
 */
export async function preparePage(
  passages: readonly Passage[],
  totals: Totals,
  budget: IndexBudget,
  slice: () => unknown,
) {
  const chars = passages.reduce((sum, passage) => sum + passage.text.length, 0);
  if (totals.chars + chars > budget.maxTextChars) return { over: `${budget.maxTextChars} characters of text` };
  if (totals.count + passages.length > budget.maxPassages) return { over: `${budget.maxPassages} passages` };
  // Every passage of a page has its title and language: the title (as cut to its longest) is cut into terms once.
  const titleTerms = tokenize(passages[0].title, passages[0].language);
  // The owner's keywords count like the title, so they are capped like it: a page cannot fill the index through them.
  const keywordTerms = tokenize(capLine(passages[0].keywords ?? ''), passages[0].language);
  const room = budget.maxTerms - totals.documentFrequency.size;
  const pageTerms = new Set<string>();
  let newTerms = 0;
  const prepared = [];
  for (const passage of passages) {
    const headings = tokenize(passage.headings.join(' '), passage.language);
    const text = tokenize(passage.text, passage.language);
    const terms = new Set([...titleTerms, ...keywordTerms, ...headings, ...text]);
    for (const term of terms) {
      if (pageTerms.has(term)) continue;
      pageTerms.add(term);
      if (!totals.documentFrequency.has(term)) newTerms++;
    }
    if (pageTerms.size > budget.maxPageTerms) return { over: `${budget.maxPageTerms} distinct terms from one page` };
    if (newTerms > room) return { over: `${budget.maxTerms} distinct terms` };
    prepared.push({ passage, terms, headings, text });
    await slice();
  }
  return { prepared, title: titleTerms.join(' '), keywords: keywordTerms.join(' '), chars };
}
