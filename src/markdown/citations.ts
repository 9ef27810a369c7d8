import type { ReplySource } from '../../contract/llm';

/** A citation, `[n]`, its number captured. */
export const CITATION = /\[(\d{1,3})\]/g;

/**
 * The sources a reply cites, in the order it first cites each (a `[n]` that names no given source is no citation):
 * what its Sources list, its copies and a Not helpful on it name. Read from the whole text: a `[n]` in code counts
 * here, though it shows as code. Small and free of the Markdown renderer, so that the start-up's download can use it.
 */
export function citedInOrder(text: string, sources: readonly ReplySource[]): ReplySource[] {
  const cited = new Map<string, ReplySource>();
  for (const [, n] of text.matchAll(CITATION)) {
    const source = sources.find((given) => String(given.n) === n);
    if (source && !cited.has(n)) cited.set(n, source);
  }
  return [...cited.values()];
}
