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
  /**
   * Words a model gave for the question, in the pages' language: looked up first, then the question as typed. `NONE`
   * (the model's answer when the site cannot cover the question) gives no passages at all.
   */
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
export function weigh(
  index: KnowledgeIndex,
  text: string,
  language: string,
  limits: RetrievalLimits,
  answered = false,
) {
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
  // What makes the text specific: its rarest words that the pages know (common ones only when it has no other).
  const known = weighed.filter((each) => each.use === 'searched');
  const most = Math.max(0, ...known.map((each) => each.weight));
  const distinct = (known.length > 0 ? known : weighed.filter((each) => each.passages > 0))
    .filter((each) => known.length === 0 || each.weight >= limits.distinctShare * most)
    .map((each) => each.term);
  // Once a model was asked for the site's words, a word the pages still lack is what the text is about ("laptops" in
  // "Do you repair laptops?"); without one, it mostly says that the owner wrote few pages ("policy", "phone").
  const absent = answered ? weighed.filter((each) => each.use === 'absent').length : 0;
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
      return searched.length + absent >= 2 && held < 2 ? Math.min(sum / total, limits.oneWordCoverage) : sum / total;
    };
    const pageCoverage = new Map<string, number>();
    for (const [page, terms] of pageTerms) pageCoverage.set(page, share(terms));
    for (const { passage, score, held } of matches) {
      const own = share(held);
      const page = pageCoverage.get(passage.page) ?? own;
      scored.push({ passage, score, coverage: own + (page - own) * limits.pageShare });
    }
  }
  return { terms: weighed, scored, share: whole > 0 ? total / whole : 0, distinct };
}

/**
 * Passages best first, by score and coverage together: BM25 alone puts first a long passage that holds one of the
 * question's words many times.
 */
export function bestFirst(scored: ScoredPassage[]): ScoredPassage[] {
  const ranks = new Map(scored.map((each) => [each, each.score * each.coverage * each.coverage]));
  return scored.sort((a, b) => (ranks.get(b) ?? 0) - (ranks.get(a) ?? 0));
}

/** The passages that hold enough of one text's weight, best first. */
const candidates = (scored: ScoredPassage[], limits: RetrievalLimits) =>
  bestFirst(scored.filter(({ coverage }) => coverage >= limits.minCoverage));

/** What became of a candidate passage, and by which rule. */
export type Verdict =
  | 'given'
  | 'already given'
  | 'below minCoverage'
  | 'no distinctive word'
  | 'maxPassages'
  | 'maxPerPage'
  | 'maxTokens';

/** The rule language of a text: its script's (Chinese, Japanese), or else the one it is said to be in. */
export const ownLanguage = (text: string, tag: string) => ruleLanguage(scriptLanguage(text, tag));

/** A model's answer that the site cannot cover the question. */
export const saysNone = (words: string) => /^\W*none\W*$/i.test(words);

/** One text looked up in one language's passages; `distinct` when its specific words decide which pages may answer. */
interface Lookup {
  text: string;
  language: string;
  /** The follow-up as typed and the previous question's words: it adds candidates, never pages of its own. */
  joined: boolean;
}

/**
 * Whether the model's search words say more than the latest message: words that only repeat it resolve nothing (a
 * follow-up is then looked up as without them).
 */
export function resolves(index: KnowledgeIndex, question: Question): boolean {
  if (!question.searchWords) return false;
  const typed = new Set(tokenize(question.latest, index.language));
  return tokenize(question.searchWords, index.language).some((term) => !typed.has(term));
}

/**
 * The texts looked up for a question, in order: the model's search words (when they say more than the question), the
 * latest message; without such words, a follow-up as typed joined with the previous question's words. Each in its own
 * language's passages, or in every language's when the pages have none in its own. A follow-up is looked up in its
 * standalone form only: the previous question is never looked up on its own.
 */
function lookups(index: KnowledgeIndex, question: Question): Lookup[] {
  if (question.searchWords !== undefined && saysNone(question.searchWords)) return [];
  const visitor = question.language ?? index.language;
  const words = resolves(index, question)
    ? [{ text: question.searchWords ?? '', tag: index.language, joined: false }]
    : [];
  const latest = { text: question.latest, tag: visitor, joined: false };
  const previous = question.previous?.trim() ?? '';
  const joined =
    words.length === 0 && previous !== ''
      ? [{ text: `${question.latest}\n${previous}`, tag: visitor, joined: true }]
      : [];
  return [...words, latest, ...joined]
    .filter(({ text }) => text.trim() !== '')
    .flatMap(({ text, tag, joined }) => {
      const own = joined ? ownLanguage(question.latest, tag) : ownLanguage(text, tag);
      const languages = index.languages.includes(own) ? [own] : index.languages;
      return languages.map((language) => ({ text, language, joined }));
    });
}

/**
 * What each lookup finds, and the pages that may answer: those holding a distinctive word of the latest message or
 * of the model's words (a lookup joined with the previous question names none), so that a question is never covered
 * by its site-common words alone, nor a new topic by the previous question's.
 */
export function lookUp(index: KnowledgeIndex, question: Question, limits: RetrievalLimits) {
  const looked = lookups(index, question).map((lookup) => ({
    ...lookup,
    ...weigh(index, lookup.text, lookup.language, limits, question.searchWords !== undefined),
  }));
  const pages = new Set<string>();
  for (const { language, distinct, joined } of looked) {
    if (joined || distinct.length === 0) continue;
    const inLanguage = (result: { [field: string]: unknown }) => result.language === language;
    for (const { id } of index.search.search(distinct.join(' '), { filter: inLanguage })) {
      pages.add(index.passages[id].page);
    }
  }
  return { looked, pages };
}

/** Takes candidates of `pages` in order within the limits, saying of each what became of it. */
export function choose(
  found: readonly ScoredPassage[],
  pages: ReadonlySet<string>,
  limits: RetrievalLimits,
): Verdict[] {
  const chosen: ScoredPassage[] = [];
  const perPage = new Map<string, number>();
  let tokens = 0;
  return found.map((candidate): Verdict => {
    const { passage } = candidate;
    if (candidate.coverage < limits.minCoverage) return 'below minCoverage';
    if (!pages.has(passage.page)) return 'no distinctive word';
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
  const { looked, pages } = lookUp(index, question, limits);
  const found = looked.flatMap(({ scored }) => candidates(scored, limits));
  const verdicts = choose(found, pages, limits);
  return found.filter((_, at) => verdicts[at] === 'given');
}
