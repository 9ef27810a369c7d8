import type { Query } from 'minisearch';
import type { Passage } from './chunk.ts';
import { RETRIEVAL_LIMITS, type RetrievalLimits } from './retrieval-limits.ts';
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
 * its coverage), in no particular order ({@link bestFirst} orders them).
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
        ? rarity(count, Math.max(found(term), limits.rareShare * count))
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
    // A passage's found terms are kept until its page's are known: a page may answer with words spread over its
    // sections (a man page's name line, its options), so a passage's coverage is the mean of its own and its page's.
    const matches: { passage: Passage; score: number; held: string[] }[] = [];
    const pageTerms = new Map<string, Set<string>>();
    for (const result of index.search.search(query, { filter: inLanguage })) {
      const passage = index.passages[result.id];
      const held = result.queryTerms.filter((term) => (weight.get(term) ?? 0) > 0);
      matches.push({ passage, score: result.score, held });
      const terms = pageTerms.get(passage.page) ?? new Set<string>();
      for (const term of held) terms.add(term);
      pageTerms.set(passage.page, terms);
    }
    // One word of several is a match in another sense as often as not ("tomorrow" as a date's special value).
    const share = (terms: ReadonlySet<string> | readonly string[]) => {
      let sum = 0;
      for (const term of terms) sum += weight.get(term) ?? 0;
      const held = 'size' in terms ? terms.size : terms.length;
      return searched.length >= 2 && held < 2 ? Math.min(sum / total, limits.oneWordCoverage) : sum / total;
    };
    const pageCoverage = new Map<string, number>();
    for (const [page, terms] of pageTerms) pageCoverage.set(page, share(terms));
    for (const { passage, score, held } of matches) {
      const own = share(held);
      const page = pageCoverage.get(passage.page) ?? own;
      scored.push({ passage, score, coverage: own + (page - own) * limits.pageShare });
    }
  }
  return { terms: weighed, scored, share: whole > 0 ? total / whole : 0 };
}

/**
 * Passages best first, by score and coverage together: BM25 alone puts first a long passage that holds one of the
 * question's words many times.
 */
function bestFirst(scored: ScoredPassage[]): ScoredPassage[] {
  const ranks = new Map(scored.map((each) => [each, each.score * each.coverage * each.coverage]));
  return scored.sort((a, b) => (ranks.get(b) ?? 0) - (ranks.get(a) ?? 0));
}

/** The passages that hold enough of one question's weight, best first. */
const candidates = (index: KnowledgeIndex, text: string, language: string, limits: RetrievalLimits) =>
  bestFirst(weigh(index, text, language, limits).scored.filter(({ coverage }) => coverage >= limits.minCoverage));

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
  const looked = texts(index, question).map(({ text, language }) => {
    const { terms, scored } = weigh(index, text, language, limits);
    return { text, language, terms, scored: bestFirst(scored) };
  });
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
