// A follow-up looked up without the model's words: which page is about both it and the previous question.
import type { RetrievalLimits } from './retrieval-limits.ts';
import { tokenize } from './tokenize.ts';
import type { HeldPassage, WeighedTerm } from './weigh.ts';

/**
 * The candidates of a lookup joined with the previous question that are about both messages, of the best page that has
 * any (`ordered` is best first): the passage itself holds enough of the latest message's weight (two of its words when
 * it has two or more, as weigh.ts's one-word rule), and its title, keywords or headings hold a distinctive word of the
 * previous question, so it is about what that question was about ("Can it be indexed?" after a jsonb question: "jsonb
 * Indexing", where every page on indexes holds the message alone).
 */
export function aboutBoth(
  joined: { terms: readonly WeighedTerm[]; language: string },
  ordered: readonly HeldPassage[],
  question: { latest: string; previous?: string },
  limits: RetrievalLimits,
): HeldPassage[] {
  const weights = (text: string) => {
    const words = new Set(tokenize(text, joined.language));
    return new Map(
      joined.terms.filter(({ term, weight }) => weight > 0 && words.has(term)).map((t) => [t.term, t.weight]),
    );
  };
  const mine = weights(question.latest);
  let whole = 0;
  for (const weight of mine.values()) whole += weight;
  const holdsMine = (held: readonly string[]) => {
    let sum = 0;
    let count = 0;
    for (const term of held) {
      sum += mine.get(term) ?? 0;
      if (mine.has(term)) count++;
    }
    return whole > 0 && (count >= 2 || mine.size < 2) && sum / whole >= limits.minCoverage;
  };
  const before = weights(question.previous ?? '');
  const most = Math.max(0, ...before.values());
  const distinct = (term: string) => most > 0 && (before.get(term) ?? 0) >= limits.distinctShare * most;
  const names = ({ held, fields }: HeldPassage) =>
    held.some((term) => distinct(term) && (fields[term] ?? []).some((field) => field !== 'text'));
  const about = (candidate: HeldPassage) => names(candidate) && holdsMine(candidate.held);
  const page = ordered.find(about)?.passage.page;
  return page === undefined ? [] : ordered.filter((candidate) => candidate.passage.page === page && about(candidate));
}
