/**
 * A reply cut into top-level Markdown blocks: `finished` blocks can no longer change as more text arrives, `tail` is
 * the block still being written. Each finished block is parsed once; only the tail is parsed again for a new piece.
 */
export interface ReplyBlocks {
  /** The text these blocks were cut from. */
  source: string;
  finished: string[];
  tail: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Cuts `text` at blank lines that are followed by an unindented line, outside fenced code: nothing after such a line
 * can change how the text before it parses, except reference definitions, which the renderer never resolves. Given
 * the result for an earlier prefix of `text` (a streamed reply only grows), it scans only from that result's tail.
 */
export function splitBlocks(text: string, previous?: ReplyBlocks): ReplyBlocks {
  const resume = previous && text.startsWith(previous.source);
  const finished = resume ? previous.finished.slice() : [];
  let blockStart = resume ? previous.source.length - previous.tail.length : 0;
  let fence: string | undefined;
  let lastLineBlank = false;
  let lineStart = blockStart;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    const line = text.slice(lineStart, newline === -1 ? undefined : newline);
    if (fence === undefined && lastLineBlank && lineStart > blockStart && /^\S/.test(line)) {
      finished.push(text.slice(blockStart, lineStart));
      blockStart = lineStart;
    }
    if (newline === -1) break;
    const marker = FENCE_OPEN.exec(line)?.[1];
    if (fence === undefined) {
      // A backtick fence's info string cannot hold a backtick (CommonMark 4.5); such a line is inline code.
      if (marker && !(marker[0] === '`' && line.slice(line.indexOf(marker) + marker.length).includes('`'))) {
        fence = marker;
      }
    } else if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
      fence = undefined;
    }
    lastLineBlank = line.trim() === '';
    lineStart = newline + 1;
  }
  return { source: text, finished, tail: text.slice(blockStart) };
}

/** Whether `block` ends inside an open code fence. */
function endsInFence(block: string): boolean {
  let fence: string | undefined;
  for (const line of block.split('\n')) {
    const marker = FENCE_OPEN.exec(line)?.[1];
    if (fence === undefined) fence = marker;
    else if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
      fence = undefined;
    }
  }
  return fence !== undefined;
}

const TABLE_DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

const cellCount = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|').length;

/** Whether `row` makes `header` a table: a delimiter row with as many cells (GFM 4.10). */
function isDelimiterRow(row: string | undefined, header: string): boolean {
  return row !== undefined && TABLE_DELIMITER_ROW.test(row) && cellCount(row) === cellCount(header);
}

/**
 * The block being written, made presentable: what has arrived of it renders as it will when complete, without raw
 * markers. An unclosed `**`, `~~`, `*`, `_` or code span is closed; a marker with nothing after it yet, a link's or an
 * image's brackets before its destination has fully arrived, and a table before its delimiter row are held back.
 * A code fence needs nothing: an open fence runs to the end of the text.
 */
export function healPartialBlock(block: string): string {
  const lineStart = block.lastIndexOf('\n') + 1;
  const head = block.slice(0, lineStart);
  let line = block.slice(lineStart);
  if (endsInFence(head)) {
    // The start of the closing fence would show as code for a moment.
    return /^ {0,3}(`+|~+)$/.test(line) ? head : block;
  }
  // A fence being opened: an open fence with no content yet renders as an empty code block.
  if (FENCE_OPEN.test(line)) return block;
  const lines = block.split('\n');
  let tableStart = lines.length;
  while (tableStart > 0 && lines[tableStart - 1].trimStart().startsWith('|')) tableStart -= 1;
  if (tableStart < lines.length && !isDelimiterRow(lines[tableStart + 1], lines[tableStart])) {
    return lines.slice(0, tableStart).join('\n');
  }

  line = line.trimEnd();
  // Markers at the very end open (or half-close) something whose content has not arrived.
  line = line.replace(/(^|[^\\])[*_~`[!]+$/, '$1').trimEnd();
  // A link or image whose destination is still arriving shows as its text; a bracket not yet closed is held back.
  line = line.replace(/!?\[([^\]]*)\](\([^)]*)?$/, '$1').replace(/!?\[([^\]]*)$/, '$1');
  const outsideCode = line.replace(/(`+)[^`]*?\1/g, '');
  const openTicks = /`+/.exec(outsideCode)?.[0];
  if (openTicks) return `${head}${line}${openTicks}`;
  let closers = '';
  const text = outsideCode.replace(/^\s*[*+-]\s/, '');
  if ((text.match(/~~/g)?.length ?? 0) % 2) closers += '~~';
  const strong = text.match(/\*\*/g)?.length ?? 0;
  if (strong % 2) closers = `**${closers}`;
  if ((text.replace(/\*\*/g, '').match(/\*/g)?.length ?? 0) % 2) closers = `*${closers}`;
  // An underscore inside a word (snake_case) is not emphasis.
  if ((text.match(/(^|\W)_|_(\W|$)/g)?.length ?? 0) % 2) closers = `_${closers}`;
  return `${head}${line}${closers}`;
}
