import type { Passage } from './chunk.ts';
import type { KnowledgeIndex } from './search-index.ts';
import { ruleLanguage, scriptLanguage, tokenize } from './tokenize.ts';

/** What the visitor asked: the latest message, and (with `history`) the question before it. */
export interface Question {
  latest: string;
  previous?: string;
  /** The visitor's language (BCP 47), for stop words and stemming; Chinese and Japanese are told by their script. */
  language?: string;
  /** Words a model gave for the question, in the pages' language: looked up first, then the question as typed. */
  searchWords?: string;
}

/** Why the question as typed is not enough, so that a model is asked for search words once. */
export type SearchWordsReason = 'language' | 'follow-up' | 'not-found';

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
  /**
   * How many passages a site needs for a word that none of them holds to weigh as much as the rarest word; a smaller site
   * weighs it in proportion. On a large site, a visitor's word that no page uses tells that the question is about
   * something else; on a small one it mostly tells that the owner wrote few pages ("policy", "something", "phone").
   */
  absentFullAt: number;
  /** The share of the question's weight that one passage must hold for the question as typed to be enough. */
  confidentCoverage: number;
}

export const RETRIEVAL_LIMITS: RetrievalLimits = {
  maxPassages: 5,
  maxTokens: 1500,
  maxPerPage: 3,
  minCoverage: 0.55,
  commonShare: 0.05,
  commonMinimum: 100,
  absentFullAt: 110,
  confidentCoverage: 0.75,
};

/** A passage found for a question, with its BM25 score and the share of the question's weight it holds. */
export interface ScoredPassage {
  passage: Passage;
  score: number;
  coverage: number;
}

/** How rare a term is among `count` passages (BM25's IDF). */
const rarity = (count: number, found: number) => Math.log(1 + (count - found + 0.5) / (found + 0.5));

/** The passages that hold enough of one question's weight, best first. */
function candidates(index: KnowledgeIndex, text: string, language: string, limits: RetrievalLimits): ScoredPassage[] {
  const terms = [...new Set(tokenize(text, scriptLanguage(text, language)))];
  const count = index.passages.length;
  const found = (term: string) => index.documentFrequency.get(term) ?? 0;
  // Common words are left out of both the search and the weight, unless the question has no other word the index knows.
  const common = Math.max(limits.commonShare * count, limits.commonMinimum);
  const rare = terms.filter((term) => found(term) <= common);
  const counted = rare.some((term) => found(term) > 0) ? rare : terms;
  const weight = new Map(
    counted.map((term) => [
      term,
      found(term) > 0 ? rarity(count, found(term)) : Math.min(1, count / limits.absentFullAt) * rarity(count, 1),
    ]),
  );
  const total = [...weight.values()].reduce((sum, value) => sum + value, 0);
  const searched = counted.filter((term) => found(term) > 0);
  if (total === 0 || searched.length === 0) return [];
  const scored: ScoredPassage[] = [];
  for (const result of index.search.search(searched.join(' '))) {
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
  const language = question.language ?? index.language;
  const found = [
    ...(question.searchWords ? candidates(index, question.searchWords, index.language, limits) : []),
    ...[question.latest, question.previous ?? '']
      .filter((text) => text.trim() !== '')
      .flatMap((text) => candidates(index, text, language, limits)),
  ];
  const chosen: ScoredPassage[] = [];
  const perPage = new Map<string, number>();
  let tokens = 0;
  for (const candidate of found) {
    if (chosen.length === limits.maxPassages) break;
    const { passage } = candidate;
    if (chosen.some((taken) => taken.passage === passage)) continue;
    if ((perPage.get(passage.page) ?? 0) >= limits.maxPerPage || tokens + passage.tokens > limits.maxTokens) continue;
    chosen.push(candidate);
    perPage.set(passage.page, (perPage.get(passage.page) ?? 0) + 1);
    tokens += passage.tokens;
  }
  return chosen;
}

/**
 * Whether to ask a model for search words, and why: the visitor writes in another language than the pages', or no
 * passage holds enough of the latest message's weight (then a follow-up needs the question before it).
 */
export function searchWordsReason(
  index: KnowledgeIndex,
  question: Question,
  limits: RetrievalLimits = RETRIEVAL_LIMITS,
): SearchWordsReason | undefined {
  const language = scriptLanguage(question.latest, question.language ?? index.language);
  if (ruleLanguage(language) !== index.language) return 'language';
  const best = candidates(index, question.latest, language, limits);
  if (best.some(({ coverage }) => coverage >= limits.confidentCoverage)) return undefined;
  return question.previous ? 'follow-up' : 'not-found';
}
