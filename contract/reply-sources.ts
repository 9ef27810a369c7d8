import type { ReplySource } from './llm';

// The proxy's own event about a reply's sources, as the page reads it. Apart from contract/llm.ts, which the page's
// start-up code imports: only the request's chunk and the kept conversation's read sources, so this stays out of the
// start-up JavaScript.

/** Whether `value` is a well-formed {@link ReplySource} with a web address: read from the network or from storage. */
export function isReplySource(value: unknown): value is ReplySource {
  const source = value as Partial<ReplySource> | null;
  return (
    typeof source === 'object' &&
    source !== null &&
    Number.isSafeInteger(source.n) &&
    (source.n ?? 0) > 0 &&
    typeof source.title === 'string' &&
    typeof source.url === 'string' &&
    /^https?:\/\//i.test(source.url)
  );
}

/**
 * The `object` of the proxy's own first event of a streamed reply, `{ object, sources, reply, uncovered }`, before the
 * first piece; a whole (non-streamed) reply carries those fields next to its choices instead. Sent only when there are
 * sources or a token (the server's feedback: `ReplyTokenFields`).
 */
export const SOURCES_OBJECT = 'chat.completion.sources';
