// The cut: which of a question's candidates are given, within the limits, and why the others are not.
import type { RetrievalLimits } from './retrieval-limits.ts';
import { tokenize } from './tokenize.ts';
import type { ScoredPassage } from './weigh.ts';

/** What became of a candidate passage, and by which rule. */
export type Verdict =
  | 'given'
  | 'already given'
  | 'below minCoverage'
  | 'below relativeRank'
  | 'no distinctive word'
  | 'the model’s words found pages'
  | 'maxPassages'
  | 'maxPerPage'
  | 'a listed page ranks above'
  | 'maxPages'
  | 'maxTokens';

/**
 * Takes candidates of `pages` in order within the limits, saying of each what became of it. Once a listed page has more
 * passages than `maxPerPage` lets in, a page ranking below them is not listed: the question is about the first page,
 * and the other only shares its words; unless its title names the question (`named`: a command's own page beside an
 * article that discusses it at length).
 */
export function choose(
  found: readonly ScoredPassage[],
  pages: ReadonlySet<string>,
  weak: ReadonlySet<ScoredPassage>,
  named: (candidate: ScoredPassage) => boolean,
  leading: ReadonlySet<ScoredPassage>,
  limits: RetrievalLimits,
): Verdict[] {
  const chosen: ScoredPassage[] = [];
  const perPage = new Map<string, number>();
  let tokens = 0;
  let pageLeftOut = false;
  return found.map((candidate): Verdict => {
    const { passage } = candidate;
    if (candidate.coverage < limits.minCoverage) return 'below minCoverage';
    if (weak.has(candidate)) return 'below relativeRank';
    if (!pages.has(passage.page)) return 'no distinctive word';
    if (chosen.some((taken) => taken.passage === passage)) return 'already given';
    if (chosen.length === limits.maxPassages) return 'maxPassages';
    if ((perPage.get(passage.page) ?? 0) >= limits.maxPerPage) {
      pageLeftOut ||= !leading.has(candidate);
      return 'maxPerPage';
    }
    if (!perPage.has(passage.page) && pageLeftOut && !named(candidate)) return 'a listed page ranks above';
    if (!perPage.has(passage.page) && perPage.size >= limits.maxPages) return 'maxPages';
    if (tokens + passage.tokens > limits.maxTokens) return 'maxTokens';
    chosen.push(candidate);
    perPage.set(passage.page, (perPage.get(passage.page) ?? 0) + 1);
    tokens += passage.tokens;
    return 'given';
  });
}

/** Whether a title holds one of a text's distinctive words, each title cut once. */
export function titleNamer(distinct: readonly string[], language: string): (title: string) => boolean {
  const words = new Set(distinct);
  const seen = new Map<string, boolean>();
  return (title) => {
    let names = seen.get(title);
    if (names === undefined) {
      names = tokenize(title, language).some((term) => words.has(term));
      seen.set(title, names);
    }
    return names;
  };
}
