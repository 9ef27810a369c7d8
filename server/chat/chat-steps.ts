// The chat request's steps from the reservation on, in `forwardChat`'s order (chat-route.ts; parse and find are in
// request-steps.ts); each gives data or the `Response` that ends it.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ReplyActions } from '../../contract/actions.ts';
import { LIMIT_ERROR_CODES } from '../../contract/llm.ts';
import { apiError, refusalLine } from '../api-error.ts';
import type { ServerEnv } from '../hono-env.ts';
import { capRefusal, type Reservation, readUsage, type TokenUsage } from '../limits/limits.ts';
import { modelAnswered, startModelCall } from '../traces/traces.ts';
import type { ChatOptions, ChatRouteDeps, ChatUpstream } from './chat-options.ts';
import type { ParsedChatRequest, RoundRequest } from './chat-request.ts';
import { Exchange } from './exchange.ts';
import { describeProviderError, rebuildCompletion } from './reply-rebuild.ts';
import type { SiteLookUp } from './search-words.ts';
import { MAX_REPLY_BYTES, relayStream } from './sse-relay.ts';
import {
  callUpstream,
  finishReasonsOf,
  modelCallOf,
  neverSent,
  providerErrorOf,
  readBounded,
  type UpstreamAnswer,
  upstreamLabel,
} from './upstream.ts';

/** One chat request on its way: what every step reads. */
export interface ChatTurn {
  c: Context<ServerEnv>;
  options: ChatOptions & { upstream: ChatUpstream };
  deps: ChatRouteDeps;
  started: number;
}

export type Parsed = Extract<ParsedChatRequest, { ok: true }>;
/** What the provider is asked with: the request with its passages, and what the search words cost. */
export interface Found extends Omit<Parsed, 'request'> {
  /** The request as sent, with its tool rounds once the model called an action. */
  request: RoundRequest;
  searchReason: NonNullable<SiteLookUp['searchWords']>['reason'] | undefined;
  searchUsage?: TokenUsage;
}

/** What is counted as the reply goes out, and the usage settled against the reservation. */
export interface Accounts {
  answer(): void;
  firstPiece(): void;
  settle(usage: TokenUsage): Promise<void>;
}

/** The request's one log line, with the response it ends with. */
export function done({ c, deps, options, started }: ChatTurn, response: Response, note: string): Response {
  deps.log(
    `[llm-proxy] POST ${c.req.path} ${response.status} ${Date.now() - started}ms ` +
      `upstream=${upstreamLabel(options.upstream)} ${note}`,
  );
  return response;
}

/** Reserve: a provider's call is paid for before it is made, so that no burst can outrun the cap (the demo is free). */
export async function reserve(turn: ChatTurn, tokens: number): Promise<Reservation | undefined | Response> {
  const { c, options, deps } = turn;
  if (!deps.spendCap || options.upstream.kind !== 'provider') return undefined;
  const held = await deps.spendCap.reserve(tokens);
  if (!('retryAfter' in held)) return held;
  options.metrics?.rateLimited.inc({ reason: 'spend_cap' });
  deps.log(refusalLine(c, 429, LIMIT_ERROR_CODES.daily, ` (${deps.spendCap.dailyLimit} tokens today)`));
  return capRefusal(c, held.retryAfter);
}

/** The counts of an answer and its usage, settled once counted so that the next request (on any replica) sees it. */
export function accounts(turn: ChatTurn, found: Found, held: { reservation: Reservation | undefined }): Accounts {
  const { feedback, knowledge, metrics } = turn.options;
  const { sources, passages } = found;
  // Settled with the first usage (with the actions' rounds, each settles its own reservation).
  let searchUsage = found.searchUsage;
  return {
    answer: () => {
      // What site owners learn of their pages' coverage, never the question.
      feedback?.count({ kind: 'answer', withSources: sources.length > 0 });
      if (!knowledge) return;
      metrics?.knowledgeAnswers.inc({ sources: sources.length > 0 ? 'with' : 'without' });
      metrics?.knowledgePassages.inc(passages);
    },
    firstPiece: () => feedback?.count({ kind: 'first-piece', ms: Date.now() - turn.started }),
    // Counted with the reply, under the same reservation: the search words are part of the visitor's message.
    settle: async (usage) => {
      const search = searchUsage;
      searchUsage = undefined;
      metrics?.tokens.inc({ kind: 'prompt' }, usage.prompt + (search?.prompt ?? 0));
      metrics?.tokens.inc({ kind: 'completion' }, usage.completion + (search?.completion ?? 0));
      const today = await held.reservation?.settle(usage.total + (search?.total ?? 0));
      const limit = turn.deps.spendCap?.dailyLimit;
      if (today !== undefined) turn.deps.log(`[llm-proxy] usage tokens=${usage.total} today=${today}/${limit}`);
    },
  };
}

/** The exchange with the provider for the reply: its deadline, its abort signal, its span and its duration. */
export function startExchange({ c, options, deps }: ChatTurn): Exchange {
  const calledAt = performance.now();
  return new Exchange(
    c,
    options.timeoutMs,
    () => options.metrics?.upstreamDuration.observe((performance.now() - calledAt) / 1000),
    startModelCall(deps.tracer, modelCallOf(options.upstream, 'reply')),
  );
}

/** The exchange stopped before the provider answered: the visitor left, the deadline passed, or no connection. */
export function failed(turn: ChatTurn, exchange: Exchange): Response {
  const c = turn.c;
  if (exchange.stopped === 'visitor-left')
    return done(turn, apiError(c, 502, 'upstream_unavailable', 'Aborted.'), 'client-closed');
  if (exchange.stopped === 'timeout') {
    return done(turn, apiError(c, 504, 'upstream_timeout', 'The language model did not answer in time.'), 'timeout');
  }
  return done(
    turn,
    apiError(c, 502, 'upstream_unavailable', 'The language model could not be reached.'),
    'unreachable',
  );
}

/** Call: the provider's answer, or a refusal that gives back what the call did not cost. */
export async function call(
  turn: ChatTurn,
  found: Found,
  exchange: Exchange,
  reservation: Reservation | undefined,
): Promise<UpstreamAnswer | Response> {
  const { c, options, deps } = turn;
  const sent = options.knowledge && found.sources;
  const searchCost = found.searchUsage?.total ?? 0;
  let answer: UpstreamAnswer;
  try {
    answer = await callUpstream(options.upstream, found.request, exchange.signal, sent, found.searchReason);
  } catch (error) {
    // Nothing was sent to a provider that could not be connected to: it cost nothing.
    if (neverSent(error)) await reservation?.settle(searchCost);
    if (!exchange.stopped) exchange.span.fail('unreachable');
    return failed(turn, exchange);
  }
  if (answer.status >= 200 && answer.status <= 299) return answer;
  exchange.span.fail(String(answer.status));
  // The provider refused the call, so it cost nothing but the search words: the rest is given back.
  await reservation?.settle(searchCost);
  // Read only for its `type` and `code` (bounded): its message may quote the request or describe the account.
  const said = await providerErrorOf(answer).catch(() => '');
  if (answer.status === 401 || answer.status === 403) {
    deps.log('[llm-proxy] the provider refused the token: check LLM_API_KEY and LLM_BASE_URL');
  }
  const status = answer.status >= 400 && answer.status <= 599 ? answer.status : 502;
  const refusal = apiError(c, status as ContentfulStatusCode, 'upstream_error', 'The language model provider failed.');
  const retryAfter = answer.header('retry-after');
  if (status === 429 && retryAfter && /^\d+$/.test(retryAfter)) refusal.headers.set('Retry-After', retryAfter);
  return done(turn, refusal, `upstream-status=${answer.status}${said}`);
}

/** Relay: chunk by chunk as it comes, each restarting the deadline; the exchange ends with the stream, not here. */
export async function relay(
  turn: ChatTurn,
  answer: UpstreamAnswer,
  exchange: Exchange,
  found: Found,
  counts: Accounts,
  actions?: ReplyActions,
): Promise<{ response: Response; streaming: boolean }> {
  const { c, options, deps } = turn;
  // A stream was asked for: anything but an event stream (a JSON body, an HTML page) is not a reply the page can read.
  if (!/^text\/event-stream\b/i.test(answer.header('content-type') ?? '')) {
    await answer.discard();
    const invalid = apiError(c, 502, 'upstream_invalid', 'The language model sent no event stream.');
    return { response: done(turn, invalid, 'invalid'), streaming: false };
  }
  const token = await options.feedback?.issue(found.sources, options.knowledge !== undefined);
  let pieces = 0;
  const relayed = relayStream(
    answer.chunks(),
    {
      onChunk: () => {
        if (pieces++ === 0) counts.firstPiece();
        exchange.stillComing();
      },
      onUsage: (usage) => {
        modelAnswered(exchange.span, { input: usage.prompt, output: usage.completion });
        return counts.settle(usage);
      },
      onFinish: (finishReasons) => modelAnswered(exchange.span, { finishReasons }),
      onEnd: () => exchange.end(),
      visitorLeft: () => exchange.stopped === 'visitor-left',
      log: deps.log,
    },
    found.sources,
    token,
    actions,
  );
  counts.answer();
  // X-Accel-Buffering tells nginx-style reverse proxies not to buffer the stream either.
  const headers = { 'Content-Type': 'text/event-stream', 'X-Accel-Buffering': 'no' };
  return { response: done(turn, new Response(relayed, { status: 200, headers }), 'stream'), streaming: true };
}

/** Rebuild: the whole answer read up to the same bound as a stream, and only the reply sent on, rebuilt. */
export async function rebuild(
  turn: ChatTurn,
  answer: UpstreamAnswer,
  exchange: Exchange,
  found: Found,
  counts: Accounts,
  actions?: ReplyActions,
): Promise<Response> {
  const { c, options } = turn;
  const unreadable = () => apiError(c, 502, 'upstream_invalid', 'The language model sent an unreadable answer.');
  let completion: unknown;
  let text: string | 'too-large';
  try {
    text = await readBounded(answer, MAX_REPLY_BYTES);
    completion = text === 'too-large' ? undefined : JSON.parse(text);
  } catch {
    return exchange.signal.aborted ? failed(turn, exchange) : done(turn, unreadable(), 'invalid');
  }
  const told = readUsage((completion as { usage?: unknown } | null)?.usage);
  modelAnswered(exchange.span, {
    input: told?.prompt,
    output: told?.completion,
    finishReasons: finishReasonsOf(completion),
  });
  // The provider's side is over here: its time is measured to the answer read, not to the usage settled below.
  exchange.end();
  // Like a stream cut short: its reservation under the cap stands.
  if (text === 'too-large') return done(turn, unreadable(), `invalid: reply over ${MAX_REPLY_BYTES} bytes`);
  const error = (completion as { error?: unknown } | null)?.error;
  if (error !== undefined && error !== null) {
    const refusal = apiError(c, 502, 'upstream_error', 'The language model provider failed.');
    return done(turn, refusal, `upstream-error ${describeProviderError(error)}`);
  }
  if (told) await counts.settle(told);
  counts.firstPiece();
  counts.answer();
  const token = await options.feedback?.issue(found.sources, options.knowledge !== undefined);
  return done(turn, c.json(rebuildCompletion(completion, found.sources, token, actions), 200), 'ok');
}
