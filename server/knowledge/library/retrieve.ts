import { choose, titleNamer, type Verdict } from './choose.ts';
import { aboutBoth } from './follow-up.ts';
import { RETRIEVAL_LIMITS, type RetrievalLimits } from './retrieval-limits.ts';
import type { KnowledgeIndex } from './search-index.ts';
import { ruleLanguage, scriptLanguage, tokenize } from './tokenize.ts';
import { bestFirst, type HeldPassage, rank, type ScoredPassage, weigh } from './weigh.ts';

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
  /** The model's search words. */
  words: boolean;
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
    ? [{ text: question.searchWords ?? '', tag: index.language, joined: false, words: true }]
    : [];
  const latest = { text: question.latest, tag: visitor, joined: false, words: false };
  const previous = question.previous?.trim() ?? '';
  const joined =
    words.length === 0 && previous !== ''
      ? [{ text: `${question.latest}\n${previous}`, tag: visitor, joined: true, words: false }]
      : [];
  return [...words, latest, ...joined]
    .filter(({ text }) => text.trim() !== '')
    .flatMap(({ text, tag, joined, words }) => {
      const own = joined ? ownLanguage(question.latest, tag) : ownLanguage(text, tag);
      const languages = index.languages.includes(own) ? [own] : index.languages;
      return languages.map((language) => ({ text, language, joined, words }));
    });
}

/**
 * What each lookup finds, and the pages that may answer: those holding a distinctive word of the latest message or
 * of the model's words (a lookup joined with the previous question names none), so that a question is never covered
 * by its site-common words alone, nor a new topic by the previous question's.
 */
function lookUp(index: KnowledgeIndex, question: Question, limits: RetrievalLimits) {
  const looked = lookups(index, question).map((lookup) => {
    // Once a model was asked, a word of the question as typed that the pages lack is what it is about, wherever it is
    // looked up; the model's own words are the site's vocabulary as it guessed it, and a guess the pages lack says
    // nothing.
    const asked = question.searchWords !== undefined;
    const typed = new Set(asked ? tokenize(question.latest, lookup.language) : []);
    const authors = {
      visitor: (term: string) => typed.has(term),
      // A question looked up in another language's passages misses their words by being in its own.
      unaided: !asked && lookup.language === ownLanguage(question.latest, question.language ?? index.language),
      messages: lookup.joined ? [question.latest, question.previous ?? ''] : [lookup.text],
    };
    return { ...lookup, ...weigh(index, lookup.text, lookup.language, limits, authors) };
  });
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

/**
 * Every candidate of every lookup (each lookup's best first) and what became of it. A candidate ranking far below its
 * lookup's best is left out; when the model's words find pages, they are the question's standalone form, and the
 * question as typed (a follow-up's "What does it cost?") adds none. A follow-up's best page about both messages
 * ({@link aboutBoth}) comes right after the message's own best page, before its others: the message alone names no
 * topic ("Can it be indexed?"), and the page the previous question names is not cut for ranking below its pages.
 */
export function judge(index: KnowledgeIndex, question: Question, limits: RetrievalLimits) {
  const { looked, pages } = lookUp(index, question, limits);
  const weak = new Set<ScoredPassage>();
  const fromWords = new Set<ScoredPassage>();
  const namer = new Map<ScoredPassage, (title: string) => boolean>();
  // Each list's best decides which of its candidates rank far below.
  const listed = (list: HeldPassage[], lookup: (typeof looked)[number]) => {
    const best = list.find(({ coverage }) => coverage >= limits.minCoverage);
    const names = titleNamer(lookup.distinct, lookup.language);
    for (const candidate of list) {
      namer.set(candidate, names);
      if (lookup.words) fromWords.add(candidate);
      if (best && rank(candidate) < limits.relativeRank * rank(best)) weak.add(candidate);
    }
    return list;
  };
  const own: HeldPassage[] = [];
  const joined: HeldPassage[] = [];
  let both: HeldPassage[] = [];
  for (const lookup of looked) {
    const ordered = bestFirst(lookup.scored);
    if (!lookup.joined) own.push(...listed(ordered, lookup));
    else {
      // Its candidates rank far below as the joined lookup's do.
      if (both.length === 0) both = aboutBoth(lookup, ordered, question, limits);
      joined.push(...listed(ordered, lookup));
    }
  }
  const leading = new Set<ScoredPassage>(both);
  const first = own.find(
    (candidate) =>
      !fromWords.has(candidate) &&
      candidate.coverage >= limits.minCoverage &&
      !weak.has(candidate) &&
      pages.has(candidate.passage.page),
  )?.passage.page;
  const head = own.filter((candidate) => fromWords.has(candidate) || candidate.passage.page === first);
  const tail = own.filter((candidate) => !fromWords.has(candidate) && candidate.passage.page !== first);
  const found: ScoredPassage[] = [...(both.length > 0 ? [...head, ...both, ...tail] : own), ...joined];
  const named = (candidate: ScoredPassage) =>
    leading.has(candidate) || (namer.get(candidate)?.(candidate.passage.title) ?? false);
  const verdicts = choose(found, pages, weak, named, leading, limits);
  const wordsFound = found.some((candidate, at) => verdicts[at] === 'given' && fromWords.has(candidate));
  return {
    looked,
    found,
    verdicts: verdicts.map(
      (verdict, at): Verdict =>
        wordsFound && verdict === 'given' && !fromWords.has(found[at]) ? 'the model’s words found pages' : verdict,
    ),
  };
}

/**
 * The passages to give the model for a question: a pure function of the index and the question. The search words'
 * passages come first (when a model gave some), then the latest message's; at most `maxPassages` and `maxTokens`
 * together, at most `maxPerPage` from one page and `maxPages` pages. A question that no passage covers well enough
 * gets none.
 */
export function retrieve(
  index: KnowledgeIndex,
  question: Question,
  limits: RetrievalLimits = RETRIEVAL_LIMITS,
): ScoredPassage[] {
  const { found, verdicts } = judge(index, question, limits);
  return found.filter((_, at) => verdicts[at] === 'given');
}
