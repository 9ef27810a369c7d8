import type { Query } from 'minisearch';
import type { Passage } from './chunk.ts';
import type { KnowledgeIndex } from './search-index.ts';
import { ruleLanguage, scriptLanguage, tokenize } from './tokenize.ts';

/** What the visitor asked: the latest message, and (with `history`) the question before it. */
export interface Question {
  latest: string;
  previous?: string;
  /**
   * The visitor's language (BCP 47), or the site's: passages in it are given first. The question is matched against
   * each language's passages with that language's stop words and stemmer, whatever it is.
   */
  language?: string;
  /** Words a model gave for the question, in the pages' language: looked up first, then the question as typed. */
  searchWords?: string;
}

/** Why the question as typed is not enough, so that a model is asked for search words once. */
export type SearchWordsReason = 'language' | 'follow-up' | 'large-site' | 'not-found';

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
  /**
   * From how many passages a site is large enough that a visitor's words are rarely its pages' ("put my changes aside"
   * for `git stash`): every question there asks for search words, as the peers that always rewrite do.
   */
  largeSite: number;
}

export const RETRIEVAL_LIMITS: RetrievalLimits = {
  maxPassages: 5,
  maxTokens: 1500,
  maxPerPage: 3,
  minCoverage: 0.55,
  commonShare: 0.15,
  commonMinimum: 100,
  absentFullAt: 110,
  confidentCoverage: 0.75,
  largeSite: 1000,
};

/** A passage found for a question, with its BM25 score and the share of the question's weight it holds. */
export interface ScoredPassage {
  passage: Passage;
  score: number;
  coverage: number;
}

/** How rare a term is among `count` passages (BM25's IDF). */
const rarity = (count: number, found: number) => Math.log(1 + (count - found + 0.5) / (found + 0.5));

/** One term of a question: in how many passages it is, its weight, and whether it was searched for. */
export interface WeighedTerm {
  term: string;
  passages: number;
  weight: number;
  /** Left out of the search and of the weight as too common, or searched for (a word no passage holds is not). */
  use: 'searched' | 'absent' | 'common';
}

/**
 * One text's terms, cut with `language`'s rules, and every passage in that language that holds any of them (whatever
 * its coverage), best first.
 */
function weigh(index: KnowledgeIndex, text: string, language: string, limits: RetrievalLimits) {
  const terms = [...new Set(tokenize(text, language))];
  const count = index.passages.length;
  const found = (term: string) => index.documentFrequency.get(term) ?? 0;
  // Common words are left out of both the search and the weight, unless the question has no other word the index knows.
  const common = Math.max(limits.commonShare * count, limits.commonMinimum);
  const rare = terms.filter((term) => found(term) <= common);
  const counted = new Set(rare.some((term) => found(term) > 0) ? rare : terms);
  const weighed: WeighedTerm[] = terms.map((term) => ({
    term,
    passages: found(term),
    weight: !counted.has(term)
      ? 0
      : found(term) > 0
        ? rarity(count, found(term))
        : Math.min(1, count / limits.absentFullAt) * rarity(count, 1),
    use: !counted.has(term) ? 'common' : found(term) > 0 ? 'searched' : 'absent',
  }));
  const weight = new Map(weighed.map((each) => [each.term, each.weight]));
  const total = weighed.reduce((sum, each) => sum + each.weight, 0);
  // The weight the common words would have had: a question whose rare words are few of its words is not confidently
  // matched by a passage that holds only those ("find which commit introduced a bug" and a "BUGS" section).
  const commonWeight = weighed.filter((each) => each.use === 'common').map((each) => rarity(count, each.passages));
  const whole = commonWeight.reduce((sum, each) => sum + each, total);
  const searched = weighed.filter((each) => each.use === 'searched').map((each) => each.term);
  const scored: ScoredPassage[] = [];
  if (total > 0 && searched.length > 0) {
    const inLanguage = (result: { [field: string]: unknown }) => result.language === language;
    // A word too common to search the text for still tells which page is meant when the page's title or its owner's
    // keywords hold it ("merge" in git-merge(1)): it adds to the score there, not to the coverage.
    const common = weighed.filter((each) => each.use === 'common').map((each) => each.term);
    const inTitles = { queries: [common.join(' ')], fields: ['title', 'keywords'] };
    const query: Query = common.length === 0 ? searched.join(' ') : { queries: [searched.join(' '), inTitles] };
    for (const result of index.search.search(query, { filter: inLanguage })) {
      const held = result.queryTerms.reduce((sum, term) => sum + (weight.get(term) ?? 0), 0);
      scored.push({ passage: index.passages[result.id], score: result.score, coverage: held / total });
    }
  }
  return { terms: weighed, scored, share: whole > 0 ? total / whole : 0 };
}

/** The passages that hold enough of one question's weight, best first. */
const candidates = (index: KnowledgeIndex, text: string, language: string, limits: RetrievalLimits) =>
  weigh(index, text, language, limits).scored.filter(({ coverage }) => coverage >= limits.minCoverage);

/** What became of a candidate passage, and by which rule. */
export type Verdict = 'given' | 'already given' | 'below minCoverage' | 'maxPassages' | 'maxPerPage' | 'maxTokens';

/** The rule language of a text: its script's (Chinese, Japanese), or else the one it is said to be in. */
const ownLanguage = (text: string, tag: string) => ruleLanguage(scriptLanguage(text, tag));

/**
 * The texts looked up for a question, in order: the model's search words, the latest message, the previous one; each
 * against its own language's passages first (with that language's rules), then against every other language's.
 */
function texts(index: KnowledgeIndex, question: Question): { text: string; language: string }[] {
  const visitor = question.language ?? index.language;
  return [
    ...(question.searchWords ? [{ text: question.searchWords, tag: index.language }] : []),
    ...[question.latest, question.previous ?? '']
      .filter((text) => text.trim() !== '')
      .map((text) => ({ text, tag: visitor })),
  ].flatMap(({ text, tag }) => {
    const own = ownLanguage(text, tag);
    return [own, ...index.languages.filter((language) => language !== own)].map((language) => ({ text, language }));
  });
}

/** Takes candidates in order within the limits, saying of each what became of it. */
function choose(found: readonly ScoredPassage[], limits: RetrievalLimits): Verdict[] {
  const chosen: ScoredPassage[] = [];
  const perPage = new Map<string, number>();
  let tokens = 0;
  return found.map((candidate): Verdict => {
    const { passage } = candidate;
    if (candidate.coverage < limits.minCoverage) return 'below minCoverage';
    if (chosen.some((taken) => taken.passage === passage)) return 'already given';
    if (chosen.length === limits.maxPassages) return 'maxPassages';
    if ((perPage.get(passage.page) ?? 0) >= limits.maxPerPage) return 'maxPerPage';
    if (tokens + passage.tokens > limits.maxTokens) return 'maxTokens';
    chosen.push(candidate);
    perPage.set(passage.page, (perPage.get(passage.page) ?? 0) + 1);
    tokens += passage.tokens;
    return 'given';
  });
}

/**
 * The passages to give the model for a question: a pure function of the index and the question. The search words'
 * passages come first (when a model gave some), then the latest message's, then the previous question's; at most
 * `maxPassages` and `maxTokens` together, at most `maxPerPage` from one page. A question that no passage covers well
 * enough gets none.
 */
export function retrieve(
  index: KnowledgeIndex,
  question: Question,
  limits: RetrievalLimits = RETRIEVAL_LIMITS,
): ScoredPassage[] {
  const found = texts(index, question).flatMap(({ text, language }) => candidates(index, text, language, limits));
  const verdicts = choose(found, limits);
  return found.filter((_, at) => verdicts[at] === 'given');
}

/** What retrieval does with a question, for the owner (`npm run knowledge -- ask`): every text, term and candidate. */
export function explain(index: KnowledgeIndex, question: Question, limits: RetrievalLimits = RETRIEVAL_LIMITS) {
  const looked = texts(index, question).map(({ text, language }) => ({
    text,
    language,
    ...weigh(index, text, language, limits),
  }));
  const found = looked.flatMap(({ scored }) => scored);
  const verdicts = choose(found, limits);
  return {
    texts: looked.map(({ text, language, terms, scored }) => ({ text, language, terms, candidates: scored.length })),
    candidates: found.map((candidate, at) => ({ ...candidate, verdict: verdicts[at] })),
    searchWords: searchWordsReason(index, question, limits),
  };
}

/**
 * Whether to ask a model for search words, and why: the visitor writes in a language that no page is in, the message
 * follows another, the site is large, or no passage holds enough of the latest message's weight.
 */
export function searchWordsReason(
  index: KnowledgeIndex,
  question: Question,
  limits: RetrievalLimits = RETRIEVAL_LIMITS,
): SearchWordsReason | undefined {
  const own = ownLanguage(question.latest, question.language ?? index.language);
  if (!index.languages.includes(own)) return 'language';
  // A follow-up's words rarely stand alone ("And how do I restore it?"), and whether they do is not lexical: as the
  // peers that condense a question with its history, every follow-up asks.
  if (question.previous) return 'follow-up';
  if (index.passages.length >= limits.largeSite) return 'large-site';
  // A word that no page uses means the visitor's words are not the site's ("phone" where a page says "call us"): a
  // passage matching the rest is not trusted, and the model is asked for the site's terms. A passage's coverage counts
  // here against the whole question, its common words too.
  const { terms, scored, share } = weigh(index, question.latest, own, limits);
  const confident = scored.some(({ coverage }) => coverage * share >= limits.confidentCoverage);
  return confident && !terms.some(({ use }) => use === 'absent') ? undefined : 'not-found';
}
