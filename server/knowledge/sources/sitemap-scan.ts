// A sitemap's `<loc>` entries, read in one pass as its body streams in. A backtracking pattern over a hostile
// sitemap (thousands of unclosed `<loc>`) takes time that grows with the square of its size; this scan looks at each
// character a bounded number of times, so it costs the same per byte whatever the sitemap holds.

const OPEN = '<loc>';
const CLOSE = '</loc>';
/** An address in a sitemap is under 2,048 characters (sitemaps.org); a `<loc>` far longer is not one. */
const MAX_LOCATION = 4096;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** A `<loc>`'s text as an address: trimmed, out of its CDATA section, with XML's five entities read. */
function locationText(raw: string): string {
  const trimmed = raw.trim();
  const text = trimmed.startsWith('<![CDATA[') && trimmed.endsWith(']]>') ? trimmed.slice(9, -3) : trimmed;
  return text.trim().replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]);
}

/** Text after the last entry that is longer than this is read now rather than kept for the next piece. */
const MAX_GAP = 8192;
/** A `<lastmod>` is a W3C date and time: a longer one is none. */
const MAX_LASTMOD = 64;

/** One `<url>` or `<sitemap>` entry: its `<loc>`, and its `<lastmod>` as ms since the epoch when it has a valid one. */
export interface SitemapEntry {
  location: string;
  lastmod?: number;
}

/** The `<lastmod>` in `text` (the text between two entries' `<loc>`), as ms since the epoch. */
function lastmodIn(text: string): number | undefined {
  const open = text.indexOf('<lastmod>');
  const close = open === -1 ? -1 : text.indexOf('</lastmod>', open);
  if (close === -1 || close - open > MAX_LASTMOD) return undefined;
  const at = Date.parse(text.slice(open + '<lastmod>'.length, close).trim());
  return Number.isNaN(at) ? undefined : at;
}

/**
 * Reads `<loc>` entries from text given in pieces; an entry cut between two pieces is read when its end arrives. An
 * entry is given as soon as its `</loc>` is in; a `<lastmod>` that follows it (in the same `<url>`) is set on it when
 * it arrives, so its reader looks at `lastmod` once the whole sitemap is read.
 */
export class LocationScanner {
  /** Whether the sitemap is a sitemap index, known once the text before its first `<loc>` is in. */
  index: boolean | undefined;
  private buffer = '';
  /** The last entry given, while its `<url>` (or `<sitemap>`) has not closed: a `<lastmod>` now is its. */
  private open: SitemapEntry | undefined;
  /** A `<lastmod>` read after an entry closed and before the next `<loc>`: the next entry's. */
  private pending: number | undefined;

  /** Reads the text between two `<loc>`, each character once: a `<lastmod>` before an entry's end is that entry's. */
  private gap(text: string) {
    const ends = [text.indexOf('</url>'), text.indexOf('</sitemap>')].filter((at) => at !== -1);
    const end = ends.length > 0 ? Math.min(...ends) : -1;
    const before = end === -1 ? text : text.slice(0, end);
    const lastmod = lastmodIn(before);
    if (this.open && lastmod !== undefined) this.open.lastmod = lastmod;
    if (end !== -1) {
      this.open = undefined;
      this.pending = lastmodIn(text.slice(end)) ?? this.pending;
    }
  }

  /** The entries that `text` completes, in order. */
  push(text: string): SitemapEntry[] {
    this.buffer += text;
    const { buffer } = this;
    const found: SitemapEntry[] = [];
    let at = 0;
    // Where the next `</loc>` is (-1: none in the buffer); only ever searched for further on, so never twice.
    let close = -2;
    for (;;) {
      const open = buffer.indexOf(OPEN, at);
      if (open === -1) {
        // A short tail may hold a `<lastmod>` cut in two: it waits for the next piece; a long one is read now.
        if (buffer.length - at > MAX_GAP) {
          const keep = Math.max(at, buffer.length - OPEN.length + 1);
          this.gap(buffer.slice(at, keep));
          at = keep;
        }
        break;
      }
      this.gap(buffer.slice(at, open));
      this.index ??= buffer.slice(0, open).includes('<sitemapindex');
      const start = open + OPEN.length;
      if (close !== -1 && close < start) close = buffer.indexOf(CLOSE, start);
      if (close === -1 || close - start > MAX_LOCATION) {
        // No end yet: wait for the next piece, unless the entry is already longer than any address.
        if (close === -1 && buffer.length - start <= MAX_LOCATION) {
          at = open;
          break;
        }
        at = start;
        continue;
      }
      // Of several `<loc>` before one `</loc>`, the last is the entry's (the search goes back at most one address).
      const entry: SitemapEntry = {
        location: locationText(buffer.slice(buffer.lastIndexOf(OPEN, close) + OPEN.length, close)),
      };
      if (this.pending !== undefined) entry.lastmod = this.pending;
      this.pending = undefined;
      this.open = entry;
      found.push(entry);
      at = close + CLOSE.length;
    }
    this.buffer = buffer.slice(at);
    return found;
  }

  /** The entries that the last piece `text` completes; then what follows the last entry, for its `<lastmod>`. */
  end(text: string): SitemapEntry[] {
    const found = this.push(text);
    this.gap(this.buffer);
    this.buffer = '';
    return found;
  }
}
