// One text's terms weighed against the index, and the passages that hold them, scored: the measure every rule of
// retrieve.ts reads.
import type { Query } from 'minisearch';
import type { Passage } from './chunk.ts';
import type { RetrievalLimits } from './retrieval-limits.ts';
import type { KnowledgeIndex } from './search-index.ts';
import { tokenize } from './tokenize.ts';

/** A passage found for a question, with its BM25 score and the share of the question's weight it holds. */
export interface ScoredPassage {
  passage: Passage;
  score: number;
  coverage: number;
}

/** A scored passage and the words of the text it holds (its own, not its page's), for the rules that read them. */
export interface HeldPassage extends ScoredPassage {
  held: readonly string[];
  /** The fields each of its words is in (MiniSearch's `match`): one in its title, keywords or headings names it. */
  fields: Readonly<Record<string, readonly string[]>>;
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
 * Whether a match holding only `held` of a text's words counts at most `oneWordCoverage`. One word of several is a match
 * in another sense as often as not ("tomorrow" as a date's special value). So is a visitor's word when others of theirs
 * (`missing`) are words no page holds, once a model was asked: unless the model's own word found the passage and the
 * missing words do not outnumber it ("call" for "phone" is the model's bridge; "repair" for "Do you repair laptops?"
 * and "time" for "cook pasta" are not). With no model asked, when the missing words outnumber it and its page's title
 * does not hold it ("How long do I have to return an item?" on a one-page site titled "Returns").
 */
const oneWordOnly = (held: string[], searched: number, missing: number, visitor: (term: string) => boolean) =>
  held.length < 2 && (searched >= 2 || (missing > 0 && (held.every(visitor) || missing > held.length)));

/** Who wrote a text's words, for {@link weigh}. */
export interface Authors {
  /** Once a model was asked for the site's words, whether a term is the visitor's own (a word of the question as typed). */
  visitor?: (term: string) => boolean;
  /** No model was asked, and the text is the visitor's, cut with their language's rules: all its words are theirs. */
  unaided?: boolean;
  /** The messages the text joins (a follow-up and the previous question), whose words vouch only for their own. */
  messages?: readonly string[];
}

/**
 * A text's searched words that its site uses in passing (in under `rare` passages: a name among a release's credits,
 * a day in a table of date fields, a file name in an example), each with the words of its own message that may vouch
 * for it: a follow-up's word is not vouched for by the previous question's.
 */
function passingWords(
  searched: readonly string[],
  found: (term: string) => number,
  rare: number,
  messages: readonly string[],
  language: string,
): Map<string, Set<string>> {
  const passing = new Map<string, Set<string>>();
  if (searched.length < 2) return passing;
  const cut = messages.map((message) => new Set(tokenize(message, language)));
  for (const term of searched) {
    // A name joined by underscores says what it is about wherever it stands (and is cut after the words).
    if (found(term) >= rare || term.includes('_')) continue;
    const company = new Set<string>();
    for (const message of cut) if (message.has(term)) for (const other of message) company.add(other);
    company.delete(term);
    passing.set(term, company);
  }
  return passing;
}

/**
 * A passage's held words without those the site uses in passing that stand in its text alone: not in its title,
 * keywords or headings, and neither within `window` words of another held word of their message nor in a passage
 * whose title or headings hold one. "Sunday" in a list of date fields, "Research" in a team's name and "photo" in a
 * file name are not what the passage is about.
 */
function withoutLoneWords(
  held: string[],
  passing: ReadonlyMap<string, ReadonlySet<string>>,
  match: Record<string, string[]>,
  text: string,
  language: string,
  window: number,
): string[] {
  const inText = (term: string) => (match[term] ?? []).every((field) => field === 'text');
  const lone = held.filter((term) => passing.has(term) && inText(term));
  if (lone.length === 0) return held;
  // Cut only when a lone word has company to stand near: cutting a passage's text is most of what this costs.
  let words: string[] | undefined;
  const alone = lone.filter((term) => {
    const company = [...(passing.get(term) ?? [])].filter((other) => held.includes(other));
    if (company.length === 0) return true;
    // A word of the title or of a heading is about the whole passage, so beside every word of it.
    if (company.some((other) => !inText(other))) return false;
    words ??= tokenize(text, language);
    return !near(words, term, (word) => company.includes(word), window);
  });
  return held.filter((term) => !alone.includes(term));
}

/** Whether `term` stands within `window` words of a word that `other` accepts. */
function near(words: readonly string[], term: string, other: (word: string) => boolean, window: number): boolean {
  let lastTerm = Number.NEGATIVE_INFINITY;
  let lastOther = Number.NEGATIVE_INFINITY;
  for (const [at, word] of words.entries()) {
    if (word === term) {
      if (at - lastOther <= window) return true;
      lastTerm = at;
    } else if (other(word)) {
      if (at - lastTerm <= window) return true;
      lastOther = at;
    }
  }
  return false;
}

/** A text's terms with their weights (common words none, words no page holds their own), and what weigh() reads of them. */
function weighTerms(index: KnowledgeIndex, text: string, language: string, limits: RetrievalLimits) {
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
  return { weighed, weight, total, whole, searched, distinct, found, count };
}

/**
 * One text's terms, cut with `language`'s rules, and every passage in that language that holds any of them (whatever
 * its coverage), in no particular order ({@link bestFirst} orders them), its words' authors as {@link Authors} says.
 */
export function weigh(
  index: KnowledgeIndex,
  text: string,
  language: string,
  limits: RetrievalLimits,
  { visitor = () => false, unaided = false, messages = [text] }: Authors = {},
) {
  const { weighed, weight, total, whole, searched, distinct, found, count } = weighTerms(index, text, language, limits);
  // Once a model was asked for the site's words, a word of the visitor's that the pages still lack is what the text is
  // about ("laptops" in "Do you repair laptops?"), in the model's words too when they repeat it ("laptop repair
  // service"); a word that only the model guessed says nothing. Without a model, it mostly says that the owner wrote few
  // pages ("phone", "policy"), unless the visitor's missing words outnumber those the pages hold ("student loan" and the
  // FAQ's student discounts, "cook pasta" and "how long" a repair takes).
  const missing = weighed.filter((each) => each.use === 'absent' && (unaided || visitor(each.term))).length;
  const scored: HeldPassage[] = [];
  if (total > 0 && searched.length > 0) {
    const inLanguage = (result: { [field: string]: unknown }) => result.language === language;
    // A word too common to search the text for still tells which page is meant when the page's title or its owner's
    // keywords hold it ("merge" in git-merge(1)): it adds to the score there, not to the coverage.
    const common = weighed.filter((each) => each.use === 'common').map((each) => each.term);
    const inTitles = { queries: [common.join(' ')], fields: ['title', 'keywords'] };
    const query: Query = common.length === 0 ? searched.join(' ') : { queries: [searched.join(' '), inTitles] };
    // A passage's found terms are kept until its page's are known: a page may answer with words spread over its
    // sections (a man page's name line, its options), so a passage's coverage is the mean of its own and its page's.
    const matches: { passage: Passage; score: number; held: string[]; fields: Record<string, string[]> }[] = [];
    const pageTerms = new Map<string, Set<string>>();
    const passing = passingWords(searched, found, limits.rareShare * count, messages, language);
    for (const result of index.search.search(query, { filter: inLanguage })) {
      const passage = index.passages[result.id];
      const held = withoutLoneWords(
        result.queryTerms.filter((term) => (weight.get(term) ?? 0) > 0),
        passing,
        result.match,
        passage.text,
        language,
        limits.passingWindow,
      );
      matches.push({ passage, score: result.score, held, fields: result.match });
      const terms = pageTerms.get(passage.page) ?? new Set<string>();
      for (const term of held) terms.add(term);
      pageTerms.set(passage.page, terms);
    }
    // With no model asked, a page whose title holds the visitor's word is about it, whatever else they asked.
    const titles = new Map<string, Set<string>>();
    const titled = (passage: Passage, terms: readonly string[]) => {
      if (!unaided) return false;
      const title = titles.get(passage.page) ?? new Set(tokenize(passage.title, language));
      titles.set(passage.page, title);
      return terms.some((term) => title.has(term));
    };
    const share = (terms: ReadonlySet<string> | readonly string[], passage: Passage) => {
      const held = [...terms];
      let sum = 0;
      for (const term of held) sum += weight.get(term) ?? 0;
      // The title is read only where the missing words could cap one word: reading every page's was most of the time.
      const titleHolds = held.length < 2 && missing > 0 && titled(passage, held);
      const capped = oneWordOnly(held, searched.length, titleHolds ? 0 : missing, visitor);
      return capped ? Math.min(sum / total, limits.oneWordCoverage) : sum / total;
    };
    const pageCoverage = new Map<string, number>();
    for (const { passage } of matches) {
      if (!pageCoverage.has(passage.page))
        pageCoverage.set(passage.page, share(pageTerms.get(passage.page) ?? [], passage));
    }
    for (const { passage, score, held, fields } of matches) {
      const own = share(held, passage);
      const page = pageCoverage.get(passage.page) ?? own;
      scored.push({ passage, score, coverage: own + (page - own) * limits.pageShare, held, fields });
    }
  }
  return { terms: weighed, scored, share: whole > 0 ? total / whole : 0, distinct };
}

/**
 * Passages best first, by score and coverage together: BM25 alone puts first a long passage that holds one of the
 * question's words many times.
 */
export function bestFirst<T extends ScoredPassage>(scored: T[]): T[] {
  return scored.sort((a, b) => rank(b) - rank(a));
}

export const rank = ({ score, coverage }: ScoredPassage) => score * coverage * coverage;
