import { ACTIONS_OBJECT, type ReplyActions } from '../../contract/actions.ts';
import type { ReplySource, ReplyTokenFields } from '../../contract/llm.ts';
import { SOURCES_OBJECT } from '../../contract/reply-sources.ts';
import { readUsage, type TokenUsage } from '../limits/limits.ts';
import { EventReader, MAX_EVENT_BYTES } from './event-reader.ts';
import { describeProviderError, rebuildChunk } from './reply-rebuild.ts';

/** A whole reply, streamed or not, may hold this many bytes of text: far above 250 tokens. */
export const MAX_REPLY_BYTES = 256 * 1024;
/**
 * A whole stream may hold this many bytes, its framing included: a reply of many small pieces carries far more framing
 * than text (a few hundred bytes an event), and what the relay drops (comments, vendor events) is counted here too.
 */
const MAX_STREAM_BYTES = 16 * MAX_REPLY_BYTES;

/**
 * The project's own event for a stream that ends badly (the provider broke off, said it failed, or passed a bound):
 * the openai client reads it as a failed call, and the page shows the spec's error. Nothing of the provider's own
 * words is in it.
 */
const STREAM_BROKE_OFF = `data: ${JSON.stringify({ error: { message: 'The language model stream broke off.', type: 'upstream_error' } })}\n\n`;

const encoder = new TextEncoder();

/** One server-sent event holding `data` as JSON. */
export const sseEvent = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

/** The project's own event: the pages given to the model (as the reply's sources) and the reply's vote token. */
function sourcesEvent(sources: readonly ReplySource[], token: ReplyTokenFields | undefined): string {
  const event = { object: SOURCES_OBJECT, ...(sources.length > 0 ? { sources } : {}), ...token };
  return sseEvent(event);
}

/** What one complete event of the provider's stream becomes. */
type Relayed =
  | { kind: 'pass'; text: string; replyBytes: number }
  | { kind: 'drop' }
  | { kind: 'done' }
  | { kind: 'failed'; why: string };

/**
 * What one provider event becomes: a chunk rebuilt from its choices (role, content, finish reason) and usage; `[DONE]`;
 * nothing (a named vendor event, an unreadable or empty one, the usage-only chunk, whose count goes to `onUsage`); or
 * the end of the reply, when the provider reports an error.
 */
function relayEvent({ data, name }: { data: string; name: string }, hooks: EventHooks): Relayed {
  if (name === 'error') return { kind: 'failed', why: 'the provider sent an error event' };
  if (name !== '' && name !== 'message') return { kind: 'drop' };
  if (data.trim() === '[DONE]') return { kind: 'done' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: 'drop' };
  }
  if (typeof parsed !== 'object' || parsed === null) return { kind: 'drop' };
  const { error, usage } = parsed as { error?: unknown; usage?: unknown };
  if (error !== undefined && error !== null) {
    return { kind: 'failed', why: `the provider sent an error event (${describeProviderError(error)})` };
  }
  const counted = readUsage(usage);
  if (counted) hooks.onUsage(counted);
  const chunk = rebuildChunk(parsed);
  if (!chunk) return { kind: 'drop' };
  const finished = chunk.choices.flatMap(({ finish_reason: reason }) => (typeof reason === 'string' ? [reason] : []));
  if (finished.length > 0) hooks.onFinish?.(finished);
  const replyBytes = chunk.choices.reduce((sum, { delta }) => sum + Buffer.byteLength(delta.content ?? ''), 0);
  return { kind: 'pass', text: sseEvent(chunk), replyBytes };
}

/** What one event's relay reports: its usage (counted), and the reasons its choices ended. */
type EventHooks = { onUsage(usage: TokenUsage): void; onFinish?(reasons: string[]): void };

/** What the relay tells the exchange it belongs to. */
export interface RelayHooks {
  /** A piece arrived: the provider is still answering. */
  onChunk(): void;
  /** The provider reported the stream's usage; the end of the stream waits for this to settle. */
  onUsage(usage: TokenUsage): Promise<void>;
  /** A choice ended, and why (`stop`, `length`): for the model call's span. */
  onFinish?(reasons: string[]): void;
  /** The provider's side is over, however it ended (called once or more: it must be idempotent). */
  onEnd(): void;
  /** Whether the visitor went away (a broken-off stream is then not worth an error event). */
  visitorLeft(): boolean;
  log(line: string): void;
}

/**
 * The provider's stream, read only as fast as the client takes it, and passed on rebuilt: only what the page reads of
 * each event goes out, never the provider's own words about a failure, its comments, vendor events or extra fields.
 * One event past `MAX_EVENT_BYTES`, or a reply past `MAX_REPLY_BYTES`, ends it as a broken stream; its reservation
 * under the spend cap then stands, as for any reply cut short. When the visitor leaves, the abort has already
 * cancelled the upstream request; the stream then just ends, rather than surfacing as an error nobody can receive.
 * `sources` (the site's pages given to the model) and the reply's `token` (for a vote on it) go first, as the
 * project's own event, and then the reply's `actions` (contract/actions.ts), when it used some.
 */
export function relayStream(
  body: AsyncIterator<Uint8Array>,
  hooks: RelayHooks,
  sources: readonly ReplySource[] = [],
  token?: ReplyTokenFields,
  actions?: ReplyActions,
): ReadableStream<Uint8Array> {
  const reader = new EventReader();
  let received = 0;
  let replied = 0;
  let counted: Promise<void> = Promise.resolve();
  const onUsage = (usage: TokenUsage) => {
    counted = hooks.onUsage(usage);
  };
  // Said in the stream, as providers say a failure mid-stream, and the stream then ends properly. Erroring the
  // response instead would destroy the connection, and with it the last pieces still on their way out.
  const breakOff = async (controller: ReadableStreamDefaultController<Uint8Array>, out: string, why: string) => {
    hooks.onEnd();
    await body.return?.();
    hooks.log(`[llm-proxy] stream from the provider broke off (${why})`);
    controller.enqueue(encoder.encode(out + STREAM_BROKE_OFF));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const opening = openingEvents(sources, token, actions);
      if (opening) controller.enqueue(encoder.encode(opening));
    },
    async pull(controller) {
      try {
        // Until a complete event arrives there is nothing to pass on; a pull must enqueue or close to be called again.
        for (;;) {
          const { done, value } = await body.next();
          if (done) {
            // An event the provider left unended is dropped, as an event-stream reader drops it.
            hooks.onEnd();
            await counted;
            controller.close();
            return;
          }
          hooks.onChunk();
          received += value.length;
          const events = received > MAX_STREAM_BYTES ? undefined : reader.push(value);
          if (events === undefined || events === 'too-large') {
            const why = events ? `event over ${MAX_EVENT_BYTES} bytes` : `stream over ${MAX_STREAM_BYTES} bytes`;
            await breakOff(controller, '', why);
            return;
          }
          const relayed = relayEvents(events, { onUsage, onFinish: hooks.onFinish }, replied);
          replied = relayed.replied;
          if (relayed.why) {
            await breakOff(controller, relayed.out, relayed.why);
            return;
          }
          const { out } = relayed;
          if (out) {
            // The page sees the end of a reply only once its tokens are counted: its next message meets the cap.
            await counted;
            controller.enqueue(encoder.encode(out));
            return;
          }
        }
      } catch (error) {
        hooks.onEnd();
        // A visitor who left has cancelled the provider's request: the stream just ends, with nobody to tell.
        if (!hooks.visitorLeft()) {
          hooks.log(`[llm-proxy] stream from the provider broke off (${(error as Error).name})`);
          controller.enqueue(encoder.encode(STREAM_BROKE_OFF));
        }
        controller.close();
      }
    },
    async cancel() {
      hooks.onEnd();
      await body.return?.();
    },
  });
}

/**
 * The project's own events, not the provider's, before the reply's first piece: the pages given to the model and the
 * reply's token, then what the reply's actions did (notes, a confirmation to ask for). Empty when there is none.
 */
function openingEvents(sources: readonly ReplySource[], token?: ReplyTokenFields, actions?: ReplyActions): string {
  const pages = sources.length > 0 || token ? sourcesEvent(sources, token) : '';
  const acted = actions && (actions.notes.length > 0 || actions.confirmation);
  return acted ? pages + sseEvent({ object: ACTIONS_OBJECT, ...actions }) : pages;
}

/**
 * One chunk's complete events, relayed in order: the text to pass on, the reply's bytes so far (`replied` before), and
 * why the stream breaks off, if it does (a reply past `MAX_REPLY_BYTES`, or the provider's failure), after `out`.
 */
function relayEvents(
  events: Exclude<ReturnType<EventReader['push']>, 'too-large'>,
  hooks: EventHooks,
  replied: number,
): { out: string; replied: number; why?: string } {
  let out = '';
  let bytes = replied;
  for (const event of events) {
    const relayed = relayEvent(event, hooks);
    if (relayed.kind === 'pass') {
      bytes += relayed.replyBytes;
      if (bytes > MAX_REPLY_BYTES) return { out, replied: bytes, why: `reply over ${MAX_REPLY_BYTES} bytes` };
      out += relayed.text;
    } else if (relayed.kind === 'done') out += 'data: [DONE]\n\n';
    else if (relayed.kind === 'failed') return { out, replied: bytes, why: relayed.why };
  }
  return { out, replied: bytes };
}
