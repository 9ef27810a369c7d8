import type { Passage } from './chunk.ts';
import type { KnowledgeIndex } from './search-index.ts';
import { DEFAULT_LANGUAGE, ruleLanguage, scriptLanguage, tokenize } from './tokenize.ts';

/** What the visitor asked: the latest message, and (with `history`) the question before it. */
export interface Question {
  latest: string;
  previous?: string;
  /**
   * The visitor's language (BCP 47), or the site's: passages in it are given first. The question is matched against
   * each language's passages with that language's stop words and stemmer, whatever it is.
   */
  language?: string;
}

/** How much material one answer may be given, and how sure the index must be. */
export interface RetrievalLimits {
  maxPassages: number;
  /** The passages' estimated tokens together. */
  maxTokens: number;
  maxPerPage: number;
  /**
   * The share of the question's rare-word weight (IDF) that a passage must hold. A fixed score threshold cannot tell
   * an off-topic question at 10,000 pages (BM25 grows with the number of words matched); this share can.
   */
  minCoverage: number;
  /**
   * A word in more than this share of the passages, and in more than `commonMinimum` of them, is left out of the
   * search and of the weight: it tells little apart, and MiniSearch would score every passage that holds it.
   */
  commonShare: number;
  commonMinimum: number;
}

export const RETRIEVAL_LIMITS: RetrievalLimits = {
  maxPassages: 5,
  maxTokens: 1500,
  maxPerPage: 3,
  minCoverage: 0.5,
  commonShare: 0.05,
  commonMinimum: 100,
};

/** A passage found for a question, with its BM25 score and the share of the question's weight it holds. */
export interface ScoredPassage {
  passage: Passage;
  score: number;
  coverage: number;
}

/**
 * How rare a term is among `count` passages (BM25's IDF). A word that no passage holds weighs as much as one that a
 * single passage holds: on a small site an absent word would otherwise outweigh every word the site does hold.
 */
const rarity = (count: number, found: number) => Math.log(1 + (count - found + 0.5) / (found + 0.5));

/** The passages of one language that hold enough of one question's weight, best first. */
function candidates(index: KnowledgeIndex, text: string, language: string, limits: RetrievalLimits): ScoredPassage[] {
  const terms = [...new Set(tokenize(text, language))];
  const count = index.passages.length;
  const found = (term: string) => index.documentFrequency.get(term) ?? 0;
  // Common words are left out of both the search and the weight, unless the question has no other word the index knows.
  const common = Math.max(limits.commonShare * count, limits.commonMinimum);
  const rare = terms.filter((term) => found(term) <= common);
  const counted = rare.some((term) => found(term) > 0) ? rare : terms;
  const weight = new Map(counted.map((term) => [term, rarity(count, Math.max(1, found(term)))]));
  const total = [...weight.values()].reduce((sum, value) => sum + value, 0);
  const searched = counted.filter((term) => found(term) > 0);
  if (total === 0 || searched.length === 0) return [];
  const scored: ScoredPassage[] = [];
  const inLanguage = (result: { [field: string]: unknown }) => result.language === language;
  for (const result of index.search.search(searched.join(' '), { filter: inLanguage })) {
    const held = result.queryTerms.reduce((sum, term) => sum + (weight.get(term) ?? 0), 0);
    const coverage = held / total;
    if (coverage >= limits.minCoverage)
      scored.push({ passage: index.passages[result.id], score: result.score, coverage });
  }
  return scored;
}

/**
 * The passages to give the model for a question: a pure function of the index and the question. The latest message's
 * passages come first, then the previous question's; at most `maxPassages` and `maxTokens` together, at most
 * `maxPerPage` from one page. A question that no passage covers well enough gets none.
 */
export function retrieve(
  index: KnowledgeIndex,
  question: Question,
  limits: RetrievalLimits = RETRIEVAL_LIMITS,
): ScoredPassage[] {
  // The question's own language first (its script tells Chinese and Japanese), then the others the index holds.
  const own = ruleLanguage(scriptLanguage(question.latest, question.language ?? DEFAULT_LANGUAGE));
  const languages = [own, ...index.languages.filter((language) => language !== own)];
  const found = [question.latest, question.previous ?? '']
    .filter((text) => text.trim() !== '')
    .flatMap((text) => languages.flatMap((language) => candidates(index, text, language, limits)));
  const chosen: ScoredPassage[] = [];
  const perPage = new Map<string, number>();
  let tokens = 0;
  for (const candidate of found) {
    if (chosen.length === limits.maxPassages) break;
    const { passage } = candidate;
    if (chosen.some((taken) => taken.passage === passage)) continue;
    if ((perPage.get(passage.url) ?? 0) >= limits.maxPerPage || tokens + passage.tokens > limits.maxTokens) continue;
    chosen.push(candidate);
    perPage.set(passage.url, (perPage.get(passage.url) ?? 0) + 1);
    tokens += passage.tokens;
  }
  return chosen;
}
