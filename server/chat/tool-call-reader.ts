// Whether the provider's answer to a request with tools is a call of one (issue 49) or the reply itself. A reply is
// handed on unread (what was read of it first replayed), so a streamed reply still streams to the visitor as it comes.
import { readUsage, type TokenUsage } from '../limits/limits.ts';
import { isRecord } from './chat-request.ts';
import { EventReader } from './event-reader.ts';
import { MAX_REPLY_BYTES } from './sse-relay.ts';
import { readBounded, type UpstreamAnswer } from './upstream.ts';

/** The model's call of a tool: its id, the tool's name and the arguments' JSON text, and what the round cost. */
export interface ToolCall {
  kind: 'call';
  id: string;
  name: string;
  arguments: string;
  usage?: TokenUsage;
}

export type ReadAnswer = ToolCall | { kind: 'reply'; answer: UpstreamAnswer };

/** Arguments are cut here (the actions' check refuses anything longer anyway). */
const MAX_ARGUMENTS = 16_384;

/** The answer again, from its first bytes (already read) and then the rest of its body, not yet read. */
function replayed(answer: UpstreamAnswer, read: Uint8Array[], rest?: AsyncIterator<Uint8Array>): UpstreamAnswer {
  let next = 0;
  const done = { done: true as const, value: undefined };
  return {
    ...answer,
    chunks: () => ({
      next: async () => (next < read.length ? { done: false, value: read[next++] } : (rest?.next() ?? done)),
      return: async () => {
        await rest?.return?.();
        return done;
      },
    }),
  };
}

/** One call as a completion's message or a stream's deltas name it; `index` orders the deltas of several. */
interface CallPiece {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

function firstCall(calls: unknown): CallPiece | undefined {
  return Array.isArray(calls) && isRecord(calls[0]) ? (calls[0] as CallPiece) : undefined;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A whole completion: its first choice's first tool call, or the reply, replayed for `rebuild`. */
async function readWhole(answer: UpstreamAnswer): Promise<ReadAnswer> {
  const body = await readBounded(answer, MAX_REPLY_BYTES);
  // Over the bound, the reply step reads what is left (nothing) and says the answer was unreadable.
  if (body === 'too-large') return { kind: 'reply', answer: replayed(answer, []) };
  let completion: unknown;
  try {
    completion = JSON.parse(body);
  } catch {
    completion = undefined;
  }
  const choice = isRecord(completion) && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const call = firstCall(isRecord(choice) && isRecord(choice.message) ? choice.message.tool_calls : undefined);
  if (!call) return { kind: 'reply', answer: replayed(answer, [Buffer.from(body)]) };
  const usage = readUsage(isRecord(completion) ? completion.usage : undefined);
  return {
    kind: 'call',
    id: text(call.id),
    name: text(call.function?.name),
    arguments: text(call.function?.arguments).slice(0, MAX_ARGUMENTS),
    usage,
  };
}

/**
 * A stream: read until its first piece of text (a reply: handed on at once, replayed from the start) or to its end (a
 * call: the first call's pieces of `delta.tool_calls`, its arguments concatenated; other calls are not read, as
 * `parallel_tool_calls` is off).
 */
async function readStream(answer: UpstreamAnswer, stillComing: () => void): Promise<ReadAnswer> {
  const body = answer.chunks();
  const reader = new EventReader();
  const read: Uint8Array[] = [];
  const call = { id: '', name: '', arguments: '' };
  let called = false;
  let usage: TokenUsage | undefined;
  let size = 0;
  for (let next = await body.next(); !next.done; next = await body.next()) {
    stillComing();
    read.push(next.value);
    size += next.value.length;
    const events = reader.push(next.value);
    // Past a bound, what it is no longer matters: the relay ends it as a broken stream.
    if (events === 'too-large' || size > MAX_REPLY_BYTES)
      return { kind: 'reply', answer: replayed(answer, read, body) };
    for (const { data } of events) {
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        continue;
      }
      if (!isRecord(chunk)) continue;
      usage = readUsage(chunk.usage) ?? usage;
      const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
      const delta = isRecord(choice?.delta) ? choice.delta : {};
      if (!called && text(delta.content) !== '') return { kind: 'reply', answer: replayed(answer, read, body) };
      const piece = firstCall(delta.tool_calls);
      if (!piece || ((piece as { index?: unknown }).index ?? 0) !== 0) continue;
      called = true;
      call.id ||= text(piece.id);
      call.name ||= text(piece.function?.name);
      call.arguments = (call.arguments + text(piece.function?.arguments)).slice(0, MAX_ARGUMENTS);
    }
  }
  return called ? { kind: 'call', ...call, usage } : { kind: 'reply', answer: replayed(answer, read) };
}

/** The provider's answer to a request with tools: a call of one, or the reply (streamed when `stream`). */
export function readToolCall(answer: UpstreamAnswer, stream: boolean, stillComing: () => void): Promise<ReadAnswer> {
  return stream ? readStream(answer, stillComing) : readWhole(answer);
}
