import { fenceAfter } from './stream-blocks';

/**
 * How deep a reply's structure may nest (quotes, lists, emphasis): far more than any answer needs. Deeper structure
 * shows as plain text. Without a limit a reply of a few thousand `>` overflows the parser's stack or the renderer's.
 */
export const MAX_NESTING = 20;

/**
 * How many emphasis, strikethrough and link markers and escapes (`*`, `_`, `~`, `[`, `]`, `\`) a block may hold, outside
 * fenced code, and still be parsed: the parser's work grows with their square (20,000 `a* ` took seconds, and a
 * minute with the GFM extensions). Prose has a few dozen. A block with more shows as plain text.
 */
export const MAX_INLINE_MARKERS = 500;

const INLINE_MARKERS = /[*_~[\]\\]/g;

// A container marker and the whitespace before it: a quote's `>`, a bullet or an ordered item's number.
const CONTAINER = /[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))/my;
// A line of `-`, `*` or `_` is a thematic break (or a heading's underline), not a list.
const THEMATIC_BREAK = /[ \t]*([-*_])[ \t]*(?:\1[ \t]*){2,}$/my;

/** The columns of a line's leading whitespace, tabs counted to the next stop of 4. */
function indentWidth(source: string, start: number): number {
  let width = 0;
  for (let index = start; source[index] === ' ' || source[index] === '\t'; index += 1) {
    width = source[index] === '\t' ? width + 4 - (width % 4) : width + 1;
  }
  return width;
}

/**
 * `source` with container markers beyond `MAX_NESTING` levels escaped, so that they read as text. Applied before
 * parsing: the parser itself recurses once per level. A container can only open on a line's markers, and an indented
 * line continues at most one list level per two columns, so a line's depth is at most half its indentation plus its
 * markers; markers beyond the limit are escaped. Fenced code is left alone. One pass. `undefined` when the block holds
 * more than `MAX_INLINE_MARKERS`: it is not to be parsed at all.
 */
export function limitNesting(source: string): string | undefined {
  const parts: string[] = [];
  let copied = 0;
  let fence: string | undefined;
  let inlineMarkers = 0;
  for (let lineStart = 0; lineStart <= source.length; ) {
    const newline = source.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? source.length : newline;
    const line = source.slice(lineStart, lineEnd);
    if (fence === undefined) {
      let depth = Math.floor(indentWidth(source, lineStart) / 2);
      let position = lineStart;
      while (true) {
        THEMATIC_BREAK.lastIndex = position;
        if (THEMATIC_BREAK.test(source)) break;
        CONTAINER.lastIndex = position;
        if (!CONTAINER.test(source)) break;
        if (depth >= MAX_NESTING) {
          // The marker's last character (`>`, the bullet, or the `.` or `)` after a number) escaped.
          parts.push(source.slice(copied, CONTAINER.lastIndex - 1), '\\');
          copied = CONTAINER.lastIndex - 1;
          // An escape costs the parser as a marker does.
          inlineMarkers += 1;
          break;
        }
        depth += 1;
        position = CONTAINER.lastIndex;
      }
      inlineMarkers += line.match(INLINE_MARKERS)?.length ?? 0;
      if (inlineMarkers > MAX_INLINE_MARKERS) return undefined;
    }
    fence = fenceAfter(line, fence);
    lineStart = lineEnd + 1;
  }
  parts.push(source.slice(copied));
  return parts.join('');
}
