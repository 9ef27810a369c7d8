import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the fake provider does with the next chat request. `delayMs` waits before answering.
 * - `content`: a normal completion whose first choice carries this content (`null` and `''` allowed). Asked for a
 *   stream (`stream: true`), it streams that content instead, as a real provider would: one piece per word,
 *   `pieceDelayMs` apart.
 * - `json`: this exact JSON body with status 200 (e.g. `{ choices: [] }`); asked for a stream, the same object as
 *   the stream's only chunk.
 * - `status`: an HTTP error with an OpenAI-style error body (with `code`, when given).
 * - `raw`: this text as an `application/json` body (e.g. invalid JSON).
 * - `drop`: the connection is destroyed without an answer.
 * - `hang`: the request is never answered (until the client goes away or the provider closes).
 * - `stream`: a server-sent-events stream: a role chunk, then these content deltas (`pieceDelayMs` apart), then how
 *   it ends (`ending`): `done` (a finish chunk and `[DONE]`, the default), `stall` (nothing more, the connection stays
 *   open), `drop` (the connection closes mid-body) or `error` (an OpenAI-style error event, then the end).
 * - `openStream`: the stream's headers and role chunk, then whatever the test writes through `streams`, piece by piece.
 * - `hold`: the request waits until the test answers it with `release(behaviour)`, so that a test can look at the
 *   page while exactly one request is pending, for as long as it needs.
 * - `hostile`: a reply of these pieces wrapped in everything a provider may add that is not the reply, each carrying
 *   {@link PROVIDER_SECRET}: extra headers, extra fields in every chunk and in the completion; in a stream, SSE comments
 *   and a named vendor event too. Then, in a stream, how it ends (`ending`).
 * - `toolCall`: the model calls this tool (`arguments` is its JSON text): `message.tool_calls` in a completion; in a
 *   stream, `delta.tool_calls` with the id and name first, then the arguments in pieces of 5 characters.
 * - `flood`: an event that never ends: `data: ` and then this many bytes without the blank line that ends an event (a
 *   JSON body of that size when no stream was asked for), written as fast as the client takes them.
 */
export type FakeBehaviour = { delayMs?: number } & (
  | { content: string | null; pieceDelayMs?: number }
  | { json: unknown }
  | { status: number; retryAfter?: string; code?: string }
  | { raw: string }
  | { drop: true }
  | { hang: true }
  | { stream: string[]; pieceDelayMs?: number; ending?: StreamEnd }
  | { openStream: true }
  | { hold: true }
  | { hostile: string[]; ending?: StreamEnd }
  | { flood: number }
  | { toolCall: { name: string; arguments: string } }
);

/** How a scripted stream ends. */
export type StreamEnd = 'done' | 'stall' | 'drop' | 'error';

/** A stream opened by `{ openStream: true }`, written by the test. */
export interface OpenStream {
  /** Sends one content delta. */
  piece(text: string): void;
  /** Ends the stream as `end` says. */
  end(how?: StreamEnd): void;
  /** Whether the client has gone away (or the stream has ended). */
  readonly closed: boolean;
}

/** One request the provider received, as it arrived. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Whether the client went away before the provider answered. */
  aborted: boolean;
}

export interface FakeProvider {
  /** Base URL of the OpenAI-compatible API, e.g. `http://127.0.0.1:43123/v1`. */
  baseURL: string;
  requests: RecordedRequest[];
  /** The behaviour for every following request until changed. */
  respondWith(behaviour: FakeBehaviour): void;
  /** Behaviours used once each, in order, before falling back to `respondWith`'s. */
  queue(...behaviours: FakeBehaviour[]): void;
  /**
   * Back to a fresh provider without restarting it (for one provider shared by many tests): forgets the recorded
   * requests (the same `requests` array, emptied), drops queued behaviours, restores the default reply and ends any
   * request still waiting for an answer.
   */
  reset(): void;
  /** How many requests a `{ hold: true }` behaviour is holding (a request whose client went away is let go). */
  readonly heldCount: number;
  /** Answers the oldest held request with this behaviour. Throws if no request is held. */
  release(behaviour: FakeBehaviour): void;
  /** The streams opened by `{ openStream: true }`, oldest first. */
  readonly streams: OpenStream[];
  close(): Promise<void>;
}

export const FAKE_REPLY = 'Hello from the fake provider';

/** Secret-looking text that the fake provider puts in everything but the reply: none of it may reach a visitor. */
export const PROVIDER_SECRET = 'fake-key-PROVIDER-SECRET-0000';

/** A provider's error as real ones word it: quoting the account, the key and the visitor's prompt. */
const PROVIDER_ERROR = {
  message: `Rate limit on org ORG-${PROVIDER_SECRET} for key ${PROVIDER_SECRET}; your prompt: ...`,
  type: 'server_error',
  code: 'rate_limit_exceeded',
};

/** What a provider may add to a reply that is not the reply. */
const VENDOR_EXTRAS = { system_fingerprint: `fp_${PROVIDER_SECRET}`, x_account: PROVIDER_SECRET };
const VENDOR_HEADERS = { 'x-vendor-account': PROVIDER_SECRET, 'openai-organization': `org-${PROVIDER_SECRET}` };

/**
 * The token usage the fake provider reports, as a real one does: in a completion's `usage`, and in a stream's last
 * chunk when asked with `stream_options.include_usage`. It counts words: the prompt's, and the reply's pieces.
 */
export function fakeUsage(promptTokens: number, completionTokens: number) {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

const words = (text: string | null | undefined) => text?.match(/\S+\s*|\s+/g) ?? [];

/** The words of the request's first message: the fake's prompt token count. */
function promptTokens(body: unknown): number {
  const content = (body as { messages?: { content?: unknown }[] } | null)?.messages?.[0]?.content;
  return typeof content === 'string' ? words(content).length : 0;
}

function completion(content: string | null, prompt = 0) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    usage: fakeUsage(prompt, words(content).length),
  };
}

function streamChunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  const { usage: _none, ...chunk } = completion(null);
  return { ...chunk, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] };
}

/**
 * Writes an event stream to `res` under the test's control, starting with `first` (a role chunk by default). With
 * `usagePrompt` (the request asked for usage), a finished stream ends with a usage chunk, which has no choices.
 */
function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  first: unknown = streamChunk({ role: 'assistant' }),
  usagePrompt?: number,
  hostile = false,
): OpenStream {
  let pieces = 0;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...(hostile ? VENDOR_HEADERS : {}),
  });
  const event = (data: unknown) => {
    if (res.writableEnded || res.destroyed) return;
    if (!hostile) {
      res.write(`data: ${JSON.stringify(data)}\n\n`);
      return;
    }
    // Around each event: a comment, a vendor's own named event, and extra fields in the chunk itself.
    res.write(`: vendor comment ${PROVIDER_SECRET}\n\n`);
    res.write(`event: vendor.meta\ndata: ${JSON.stringify({ account: PROVIDER_SECRET })}\n\n`);
    res.write(`data: ${JSON.stringify({ ...(data as object), ...VENDOR_EXTRAS })}\n\n`);
  };
  event(first);
  return {
    piece: (text) => {
      pieces += 1;
      event(streamChunk({ content: text }));
    },
    end(how = 'done') {
      if (res.writableEnded || res.destroyed) return;
      if (how === 'done') {
        event(streamChunk({}, 'stop'));
        if (usagePrompt !== undefined) {
          event({ ...streamChunk({}), choices: [], usage: fakeUsage(usagePrompt, pieces) });
        }
        res.end('data: [DONE]\n\n');
      } else if (how === 'drop') {
        // Closed after what was written has gone out, without the end of the chunked body: a connection lost
        // mid-answer, as the client sees it.
        req.socket.end();
      } else if (how === 'error') {
        event({ error: PROVIDER_ERROR });
        res.end();
      }
    },
    get closed() {
      return res.writableEnded || res.destroyed;
    },
  };
}

/** A call of a tool, as a completion or as a stream whose arguments come in pieces. */
function answerToolCall(
  res: ServerResponse,
  tool: { name: string; arguments: string },
  stream: boolean,
  prompt: number,
) {
  const id = `call_fake_${Math.random().toString(36).slice(2, 10)}`;
  if (!stream) {
    const { choices: _reply, ...rest } = completion(null, prompt);
    const message = { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: tool }] };
    send(res, 200, JSON.stringify({ ...rest, choices: [{ index: 0, finish_reason: 'tool_calls', message }] }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  const callDelta = (fields: object) => streamChunk({ tool_calls: [{ index: 0, ...fields }] });
  event(streamChunk({ role: 'assistant', content: null }));
  event(callDelta({ id, type: 'function', function: { name: tool.name, arguments: '' } }));
  for (let at = 0; at < tool.arguments.length; at += 5) {
    event(callDelta({ function: { arguments: tool.arguments.slice(at, at + 5) } }));
  }
  event(streamChunk({}, 'tool_calls'));
  event({ ...streamChunk({}), choices: [], usage: fakeUsage(prompt, 7) });
  res.end('data: [DONE]\n\n');
}

/** The requests whose body asked for a streamed reply (`stream: true`). */
const streamRequests = new WeakSet<IncomingMessage>();
/** The prompt token count of each request that asked for usage in its stream (`stream_options.include_usage`). */
const usageRequests = new WeakMap<IncomingMessage, number>();
const requestBodies = new WeakMap<IncomingMessage, unknown>();

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

/** Writes `bytes` bytes of one endless value in 64 KiB pieces, as fast as the client takes them. */
async function flood(res: ServerResponse, start: string, bytes: number): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, 'x');
  res.write(start);
  for (let sent = 0; sent < bytes && !res.destroyed; sent += piece.length) {
    if (res.write(piece)) continue;
    await new Promise<void>((resolve) => {
      const go = () => {
        res.off('drain', go).off('close', go);
        resolve();
      };
      res.on('drain', go).on('close', go);
    });
  }
  if (!res.destroyed) res.end();
}

/**
 * A scriptable OpenAI-compatible chat-completions server on 127.0.0.1 for tests. It allows any origin (so a page
 * in direct mode can call it), records every request, and closes its open connections when closed, so a test that
 * forgets nothing leaves nothing running.
 */
export async function startFakeProvider(
  options: {
    port?: number;
    /** `false`: keep no requests (a load test's thousands). */
    record?: boolean;
    /** Another local address than 127.0.0.1: Docker's bridge gateway, which containers on any network reach. */
    host?: string;
  } = {},
): Promise<FakeProvider> {
  const host = options.host ?? '127.0.0.1';
  let standing: FakeBehaviour = { content: FAKE_REPLY };
  const queued: FakeBehaviour[] = [];
  const requests: RecordedRequest[] = [];
  const waiting = new Set<ServerResponse>();
  const held: { res: ServerResponse; answer: (behaviour: FakeBehaviour) => void }[] = [];
  const streams: OpenStream[] = [];

  async function answer(req: IncomingMessage, res: ServerResponse, behaviour: FakeBehaviour): Promise<void> {
    if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    if (res.destroyed) return;

    const streamAsked = streamRequests.has(req);
    const usagePrompt = usageRequests.get(req);
    if ('content' in behaviour && streamAsked) {
      const stream = openEventStream(req, res, undefined, usagePrompt);
      for (const word of words(behaviour.content)) {
        if (behaviour.pieceDelayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.pieceDelayMs));
        stream.piece(word);
      }
      stream.end();
    } else if ('content' in behaviour) {
      send(res, 200, JSON.stringify(completion(behaviour.content, promptTokens(requestBodies.get(req)))));
    } else if ('json' in behaviour && streamAsked) {
      const stream = openEventStream(req, res, behaviour.json);
      stream.end();
    } else if ('json' in behaviour) send(res, 200, JSON.stringify(behaviour.json));
    else if ('status' in behaviour)
      send(
        res,
        behaviour.status,
        JSON.stringify({
          error: { message: `fake provider error ${behaviour.status}`, type: 'fake', code: behaviour.code ?? null },
        }),
        behaviour.retryAfter ? { 'retry-after': behaviour.retryAfter } : {},
      );
    else if ('raw' in behaviour) send(res, 200, behaviour.raw);
    else if ('drop' in behaviour) req.socket.destroy();
    else if ('stream' in behaviour) {
      const stream = openEventStream(req, res, undefined, usagePrompt);
      for (const delta of behaviour.stream) {
        if (behaviour.pieceDelayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.pieceDelayMs));
        stream.piece(delta);
      }
      stream.end(behaviour.ending);
    } else if ('hostile' in behaviour && streamAsked) {
      const stream = openEventStream(req, res, undefined, usagePrompt, true);
      for (const piece of behaviour.hostile) stream.piece(piece);
      stream.end(behaviour.ending);
    } else if ('hostile' in behaviour) {
      const reply = completion(behaviour.hostile.join(''), promptTokens(requestBodies.get(req)));
      const choices = reply.choices.map((choice) => ({ ...choice, logprobs: { secret: PROVIDER_SECRET } }));
      send(res, 200, JSON.stringify({ ...reply, choices, ...VENDOR_EXTRAS }), VENDOR_HEADERS);
    } else if ('toolCall' in behaviour) {
      answerToolCall(res, behaviour.toolCall, streamAsked, promptTokens(requestBodies.get(req)));
    } else if ('flood' in behaviour && streamAsked) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await flood(res, 'data: ', behaviour.flood);
    } else if ('flood' in behaviour) {
      res.writeHead(200, { 'content-type': 'application/json' });
      await flood(res, '{"choices": "', behaviour.flood);
    } else if ('openStream' in behaviour) {
      streams.push(openEventStream(req, res, undefined, usagePrompt));
    } else if ('hold' in behaviour) {
      const entry = { res, answer: (next: FakeBehaviour) => void answer(req, res, next) };
      held.push(entry);
      // A client that goes away takes its request with it: nothing is left to answer.
      res.on('close', () => {
        const index = held.indexOf(entry);
        if (index >= 0) held.splice(index, 1);
      });
    }
    // `hang`: no answer at all.
  }

  const server = createServer(async (req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST, GET, OPTIONS',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '*',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Recorded as the raw text.
    }
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      aborted: false,
    };
    if (options.record !== false) requests.push(recorded);
    const asked = body as { stream?: unknown; stream_options?: { include_usage?: unknown } } | null;
    if (asked?.stream === true) streamRequests.add(req);
    if (asked?.stream_options?.include_usage === true) usageRequests.set(req, promptTokens(body));
    requestBodies.set(req, body);
    waiting.add(res);
    res.on('close', () => {
      waiting.delete(res);
      if (!res.writableFinished) recorded.aborted = true;
    });

    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      send(res, 404, JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    await answer(req, res, queued.shift() ?? standing);
  });

  await new Promise<void>((resolve, reject) => {
    // A fixed port that is taken must fail the caller, not crash the process with an unhandled 'error' event.
    server.once('error', (error) => reject(new Error(`The fake provider could not listen: ${error.message}`)));
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://${host}:${port}/v1`,
    requests,
    respondWith(behaviour) {
      standing = behaviour;
    },
    queue(...behaviours) {
      queued.push(...behaviours);
    },
    reset() {
      for (const res of waiting) res.destroy();
      waiting.clear();
      requests.length = 0;
      queued.length = 0;
      held.length = 0;
      streams.length = 0;
      standing = { content: FAKE_REPLY };
    },
    get heldCount() {
      return held.length;
    },
    streams,
    release(behaviour) {
      const next = held.shift();
      if (!next) throw new Error('The fake provider holds no request to release');
      next.answer(behaviour);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
