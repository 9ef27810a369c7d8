// What retrieval does with a question, for the owner (`npm run knowledge -- ask`), and whether to ask a model for
// search words: both read the index as retrieve.ts does, with its rules.
import { RETRIEVAL_LIMITS, type RetrievalLimits } from './retrieval-limits.ts';
import { judge, ownLanguage, type Question, resolves, type SearchWordsReason, saysNone } from './retrieve.ts';
import type { KnowledgeIndex } from './search-index.ts';
import { weigh } from './weigh.ts';

/** How a follow-up was looked up, and why (`undefined`: the message follows nothing). */
export type FollowUpRule =
  | { rule: 'none'; why: string }
  | { rule: 'standalone'; why: string }
  | { rule: 'joined'; why: string };

function followUpRule(index: KnowledgeIndex, question: Question): FollowUpRule | undefined {
  if (!question.previous?.trim()) return undefined;
  if (question.searchWords !== undefined && saysNone(question.searchWords))
    return { rule: 'none', why: 'the model answered NONE: the site cannot cover it, so nothing is looked up' };
  if (resolves(index, question))
    return {
      rule: 'standalone',
      why: "the model's search words resolve it: they and the message are looked up, the previous question is not",
    };
  return {
    rule: 'joined',
    why:
      `${question.searchWords ? "the model's search words only repeat it" : 'no search words'}: it is looked up as ` +
      "typed, and with the previous question's words, but only pages holding its own distinctive words may answer " +
      '(a page about both, named by the previous question, comes after its own best page)',
  };
}

/** Every text looked up, its terms and distinctive words, every candidate and what became of it. */
export function explain(index: KnowledgeIndex, question: Question, limits: RetrievalLimits = RETRIEVAL_LIMITS) {
  const { looked, found, verdicts } = judge(index, question, limits);
  return {
    texts: looked.map(({ text, language, terms, scored, distinct, joined }) => ({
      text,
      language,
      terms,
      distinct: joined ? [] : distinct,
      joined,
      candidates: scored.length,
    })),
    candidates: found.map((candidate, at) => ({ ...candidate, verdict: verdicts[at] })),
    followUp: followUpRule(index, question),
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
