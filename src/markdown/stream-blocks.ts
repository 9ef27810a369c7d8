/**
 * Where the scan of a reply stopped: at the start of its last line, which may still grow. Everything before it has
 * been read once and is summed up here, so that the next piece is read from here on, never from the reply's start.
 */
export interface ScanState {
  /** Offset of the last line: the one scanned again with the next piece, since it may not be complete. */
  lineStart: number;
  /** The fence open before that line, if any. */
  fence?: string;
  lastLineBlank: boolean;
  /** Offset of the first of the lines starting with `|` that run up to `lineStart` (a table, perhaps), if any. */
  tableStart?: number;
}

/**
 * A reply cut into top-level Markdown blocks: `finished` blocks can no longer change as more text arrives, `tail` is
 * the block still being written. Each finished block is parsed once; only the tail is parsed again for a new piece.
 */
export interface ReplyBlocks {
  /** The text these blocks were cut from. */
  source: string;
  finished: string[];
  tail: string;
  /** Offset of the tail in `source`. */
  tailStart: number;
  scan: ScanState;
  /** How many characters this cut read: the new piece and the line it continues, however long the reply. */
  scanned: number;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/** The fence open after `line`, given the one open before it. Shared with the nesting limit, which skips code. */
export function fenceAfter(line: string, fence: string | undefined): string | undefined {
  const marker = FENCE_OPEN.exec(line)?.[1];
  if (fence === undefined) {
    // A backtick fence's info string cannot hold a backtick (CommonMark 4.5); such a line is inline code.
    if (marker && !(marker[0] === '`' && line.slice(line.indexOf(marker) + marker.length).includes('`'))) {
      return marker;
    }
    return undefined;
  }
  return marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker
    ? undefined
    : fence;
}

const isTableLine = (line: string) => line.trimStart().startsWith('|');

/**
 * Cuts `text` at blank lines that are followed by an unindented line, outside fenced code: nothing after such a line
 * can change how the text before it parses, except reference definitions, which the renderer never resolves. Given
 * the result for an earlier prefix of `text` (a streamed reply only grows), it reads on from where that one stopped:
 * the start of its last line.
 */
export function splitBlocks(text: string, previous?: ReplyBlocks): ReplyBlocks {
  const resume = previous && text.startsWith(previous.source);
  const finished = resume ? previous.finished.slice() : [];
  let blockStart = resume ? previous.tailStart : 0;
  let { lineStart, fence, lastLineBlank, tableStart }: ScanState = resume
    ? previous.scan
    : { lineStart: 0, lastLineBlank: false };
  const scanFrom = lineStart;
  while (true) {
    const newline = text.indexOf('\n', lineStart);
    const line = text.slice(lineStart, newline === -1 ? undefined : newline);
    if (fence === undefined && lastLineBlank && lineStart > blockStart && /^\S/.test(line)) {
      finished.push(text.slice(blockStart, lineStart));
      blockStart = lineStart;
    }
    if (newline === -1) break;
    fence = fenceAfter(line, fence);
    lastLineBlank = line.trim() === '';
    tableStart = isTableLine(line) ? (tableStart ?? lineStart) : undefined;
    lineStart = newline + 1;
  }
  return {
    source: text,
    finished,
    tail: text.slice(blockStart),
    tailStart: blockStart,
    scan: { lineStart, fence, lastLineBlank, tableStart },
    scanned: text.length - scanFrom,
  };
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

/** The line of `text` that starts at `start`. */
function lineAt(text: string, start: number): string {
  const newline = text.indexOf('\n', start);
  return text.slice(start, newline === -1 ? undefined : newline);
}

/**
 * The block being written (`blocks.tail`), made presentable: what has arrived of it renders as it will when complete,
 * without raw markers. An unclosed `**`, `~~`, `*`, `_` or code span is closed; a marker with nothing after it yet, a
 * link's or an image's brackets before its destination has fully arrived, and a table before its delimiter row are
 * held back. A code fence needs nothing: an open fence runs to the end of the text. Only the last line is read (and a
 * table's first two): what comes before it is known from the scan, so a piece costs the same however long the block.
 */
export function healPartialBlock({ source, tailStart, scan }: ReplyBlocks): string {
  const { lineStart, fence } = scan;
  const head = source.slice(tailStart, lineStart);
  let line = source.slice(lineStart);
  if (fence !== undefined) {
    // The start of the closing fence would show as code for a moment.
    return /^ {0,3}(`+|~+)$/.test(line) ? head : head + line;
  }
  // A fence being opened: an open fence with no content yet renders as an empty code block.
  if (FENCE_OPEN.test(line)) return head + line;
  // A table is the run of `|` lines that reaches the end.
  const tableStart = isTableLine(line) ? (scan.tableStart ?? lineStart) : undefined;
  if (tableStart !== undefined && tableStart >= tailStart) {
    const header = lineAt(source, tableStart);
    const second = tableStart + header.length + 1;
    if (!isDelimiterRow(second <= source.length ? lineAt(source, second) : undefined, header)) {
      // The lines before the table, without the newline that ends them (as a block cut there would be).
      return source.slice(tailStart, Math.max(tailStart, tableStart - 1));
    }
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
