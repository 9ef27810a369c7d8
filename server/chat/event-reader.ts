// The provider's stream read as server-sent events, one byte looked at once, each event bounded.

/** One event of a provider's stream may hold this many bytes: a chunk of one token is a few hundred. */
export const MAX_EVENT_BYTES = 64 * 1024;
/**
 * Reads server-sent events incrementally: each byte is looked at once, when it arrives (never the whole buffer again),
 * and an event is kept only up to `MAX_EVENT_BYTES`. Comments and fields other than `data` and `event` are dropped as
 * they are read.
 */
export class EventReader {
  private readonly decoder = new TextDecoder();
  /** The pieces of the line being read, not yet ended. */
  private line: Uint8Array[] = [];
  /** Bytes of the current event so far, its unended line included. */
  private eventBytes = 0;
  private data: string[] = [];
  private name = '';
  /** The last byte read was a CR: an LF right after it ends nothing more. */
  private afterCR = false;

  /**
   * The complete events in `chunk`, in order, as their data and name; `'too-large'` once the current event passes
   * `MAX_EVENT_BYTES` (the reader is then of no further use).
   */
  push(chunk: Uint8Array): { data: string; name: string }[] | 'too-large' {
    const events: { data: string; name: string }[] = [];
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte !== 0x0a && byte !== 0x0d) continue;
      const crlf = byte === 0x0a && this.afterCR && i === start && this.line.length === 0;
      this.afterCR = byte === 0x0d;
      this.eventBytes += i + 1 - start;
      if (this.eventBytes > MAX_EVENT_BYTES) return 'too-large';
      if (!crlf) {
        this.line.push(chunk.subarray(start, i));
        const event = this.endLine();
        if (event) events.push(event);
      }
      start = i + 1;
    }
    if (start < chunk.length) {
      this.afterCR = false;
      this.eventBytes += chunk.length - start;
      if (this.eventBytes > MAX_EVENT_BYTES) return 'too-large';
      // Copied: the caller's buffer may be reused once this returns.
      this.line.push(chunk.slice(start));
    }
    return events;
  }

  private endLine(): { data: string; name: string } | undefined {
    const bytes = this.line.length === 1 ? this.line[0] : Buffer.concat(this.line);
    this.line = [];
    if (bytes.length === 0) {
      const event = this.data.length > 0 ? { data: this.data.join('\n'), name: this.name } : undefined;
      this.data = [];
      this.name = '';
      this.eventBytes = 0;
      return event;
    }
    const text = this.decoder.decode(bytes);
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(text[colon + 1] === ' ' ? colon + 2 : colon + 1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.name = value;
    return undefined;
  }
}
