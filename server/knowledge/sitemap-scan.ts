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

/** Reads `<loc>` entries from text given in pieces; an entry cut between two pieces is read when its end arrives. */
export class LocationScanner {
  /** Whether the sitemap is a sitemap index, known once the text before its first `<loc>` is in. */
  index: boolean | undefined;
  private buffer = '';

  /** The entries that `text` completes, in order. */
  push(text: string): string[] {
    this.buffer += text;
    const { buffer } = this;
    const found: string[] = [];
    let at = 0;
    // Where the next `</loc>` is (-1: none in the buffer); only ever searched for further on, so never twice.
    let close = -2;
    for (;;) {
      const open = buffer.indexOf(OPEN, at);
      if (open === -1) {
        at = Math.max(at, buffer.length - OPEN.length + 1);
        break;
      }
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
      found.push(locationText(buffer.slice(buffer.lastIndexOf(OPEN, close) + OPEN.length, close)));
      at = close + CLOSE.length;
    }
    this.buffer = buffer.slice(at);
    return found;
  }
}
