import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CHAT_COMPLETIONS_PATH, LIMIT_ERROR_CODES } from '../../contract/llm.ts';
import { apiError, type RefusalCode, readJsonBody, refusalLine } from '../api-error.ts';
import type { ServerEnv, Upstream } from '../hono-env.ts';
import type { Counters } from '../limits/limits.ts';
import {
  capRefusal,
  DEFAULT_MAX_BODY_BYTES,
  limitBody,
  type Reservation,
  rateLimit,
  readUsage,
  type SpendCap,
  type TokenUsage,
} from '../limits/limits.ts';
import type { ChatOptions } from './chat-options.ts';
import { reservationFor, visitorLanguage } from './chat-request.ts';
import { DEMO_MODEL } from './demo-responder.ts';
import { Exchange } from './exchange.ts';
import { describeProviderError, rebuildCompletion } from './reply-rebuild.ts';
import { lookUpSite, searchAgain } from './search-words.ts';
import { MAX_REPLY_BYTES, relayStream } from './sse-relay.ts';
import {
  callUpstream,
  neverSent,
  providerErrorOf,
  readBounded,
  type UpstreamAnswer,
  upstreamLabel,
} from './upstream.ts';

/** What the chat route needs besides its options: where counts go, and where its log lines go. */
export interface ChatRouteDeps {
  counters: Counters;
  spendCap: SpendCap | undefined;
  log: (line: string) => void;
  /** Whether a host page at `origin` may frame the site whose own host is `selfHost` (`FRAME_ANCESTORS`). */
  framesAllowed: (origin: string, selfHost: string) => boolean;
}

type ChatUpstream = Exclude<Upstream, { kind: 'none' }>;

/**
 * `POST /api/llm/v1/chat/completions`: counted, rate limited, capped, size limited, checked, then forwarded with the
 * token added server-side and the model pinned. Only the reply comes back, rebuilt (see `reply-rebuild.ts`): upstream
 * error bodies never reach the client, only a generic error with the upstream status.
 */
export function chatRoute(options: ChatOptions & { upstream: ChatUpstream }, deps: ChatRouteDeps): Hono<ServerEnv> {
  const { metrics } = options;
  const route = new Hono<ServerEnv>();
  route.post(
    CHAT_COMPLETIONS_PATH,
    async (c, next) => {
      await next();
      metrics?.chatRequests.inc({ status: String(c.res.status) });
      if (c.res.status === 429) options.feedback?.count({ kind: 'limited' });
      else if (c.res.status >= 500) options.feedback?.count({ kind: 'error' });
    },
    ...rateLimit(options, deps.counters, deps.log),
    limitBody(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, deps.log),
    (c) => forwardChat(c, options, deps),
  );
  return route;
}

async function forwardChat(
  c: Context<ServerEnv>,
  options: ChatOptions & { upstream: ChatUpstream },
  { log, spendCap, framesAllowed }: ChatRouteDeps,
): Promise<Response> {
  const started = Date.now();
  const { upstream, metrics } = options;
  const done = (response: Response, note: string) => {
    log(
      `[llm-proxy] POST ${CHAT_COMPLETIONS_PATH} ${response.status} ${Date.now() - started}ms ` +
        `upstream=${upstreamLabel(upstream)} ${note}`,
    );
    return response;
  };
  const refuse = (status: 400 | 415, code: RefusalCode, message: string) => {
    log(refusalLine(c, status, code));
    return apiError(c, status, code, message);
  };

  const read = await readJsonBody(c, 'the request');
  if ('status' in read) return refuse(read.status, read.code, read.message);
  const { body } = read;
  // The site's pages: the passages found for the question (none before the first index, none when not covered).
  const { knowledge, assistant } = options;
  const site = lookUpSite(
    body,
    upstream.kind === 'demo' ? DEMO_MODEL : upstream.model,
    {
      instructions: assistant?.instructions,
      history: assistant?.page.history ?? 0,
      ...(assistant?.page.pageContext
        ? { pageOrigin: (origin: string) => framesAllowed(origin, c.req.header('host') ?? '') }
        : {}),
    },
    knowledge,
    { language: visitorLanguage(body) ?? assistant?.language, rewrite: assistant?.rewriteQuestions !== false },
  );
  if (!site.parsed.ok) return refuse(400, 'invalid_body', site.parsed.reason);
  const { feedback } = options;
  // The page says which message starts a conversation (`first_message`); nothing else of the body is counted.
  feedback?.count({ kind: 'message', first: (body as { first_message?: unknown }).first_message === true });
  // Counted once the provider answers: what site owners learn of their pages' coverage, never the question.
  const countAnswer = () => {
    feedback?.count({ kind: 'answer', withSources: sources.length > 0 });
    if (!knowledge) return;
    metrics?.knowledgeAnswers.inc({ sources: sources.length > 0 ? 'with' : 'without' });
    metrics?.knowledgePassages.inc(passages);
  };
  const firstPiece = () => feedback?.count({ kind: 'first-piece', ms: Date.now() - started });

  // The demo costs nothing. A provider's call is paid for before it is made, so that no burst can outrun the cap.
  let reservation: Reservation | undefined;
  if (spendCap && upstream.kind === 'provider') {
    const held = await spendCap.reserve(reservationFor(site.parsed.request) + (site.searchWords?.reserve ?? 0));
    if ('retryAfter' in held) {
      metrics?.rateLimited.inc({ reason: 'spend_cap' });
      log(refusalLine(c, 429, LIMIT_ERROR_CODES.daily, ` (${spendCap.dailyLimit} tokens today)`));
      return capRefusal(c, held.retryAfter);
    }
    reservation = held;
  }
  // Counted with the reply, under the same reservation: the search words are part of the visitor's message.
  const searched = await searchAgain(site, upstream, c.req.raw.signal, log);
  const searchUsage = searched?.usage?.total ?? 0;
  const { request, sources, passages } = searched?.parsed.ok ? searched.parsed : site.parsed;
  // Settles once the usage is counted, so that the next request (on any replica) sees it.
  const recordUsage = async (usage: TokenUsage) => {
    metrics?.tokens.inc({ kind: 'prompt' }, usage.prompt + (searched?.usage?.prompt ?? 0));
    metrics?.tokens.inc({ kind: 'completion' }, usage.completion + (searched?.usage?.completion ?? 0));
    const today = await reservation?.settle(usage.total + searchUsage);
    if (today !== undefined) log(`[llm-proxy] usage tokens=${usage.total} today=${today}/${spendCap?.dailyLimit}`);
  };

  const calledAt = performance.now();
  const exchange = new Exchange(c, options.timeoutMs, () =>
    metrics?.upstreamDuration.observe((performance.now() - calledAt) / 1000),
  );
  const failed = () => {
    exchange.end();
    if (exchange.stopped === 'visitor-left') {
      return done(apiError(c, 502, 'upstream_unavailable', 'Aborted.'), 'client-closed');
    }
    if (exchange.stopped === 'timeout') {
      return done(apiError(c, 504, 'upstream_timeout', 'The language model did not answer in time.'), 'timeout');
    }
    return done(apiError(c, 502, 'upstream_unavailable', 'The language model could not be reached.'), 'unreachable');
  };

  let answer: UpstreamAnswer;
  try {
    answer = await callUpstream(upstream, request, exchange.signal, knowledge && sources, site.searchWords?.reason);
  } catch (error) {
    // Nothing was sent to a provider that could not be connected to: it cost nothing.
    if (neverSent(error)) await reservation?.settle(searchUsage);
    return failed();
  }

  if (answer.status < 200 || answer.status > 299) {
    // The provider refused the call, so it cost nothing but the search words: the rest is given back.
    await reservation?.settle(searchUsage);
    // Read only for its `type` and `code` (bounded): its message may quote the request or describe the account.
    const said = await providerErrorOf(answer).catch(() => '');
    exchange.end();
    if (answer.status === 401 || answer.status === 403) {
      log('[llm-proxy] the provider refused the token: check LLM_API_KEY and LLM_BASE_URL');
    }
    const status = answer.status >= 400 && answer.status <= 599 ? answer.status : 502;
    const refusal = apiError(
      c,
      status as ContentfulStatusCode,
      'upstream_error',
      'The language model provider failed.',
    );
    const retryAfter = answer.header('retry-after');
    if (status === 429 && retryAfter && /^\d+$/.test(retryAfter)) refusal.headers.set('Retry-After', retryAfter);
    return done(refusal, `upstream-status=${answer.status}${said}`);
  }

  if (request.stream) {
    // A stream was asked for: anything but an event stream (a JSON body, an HTML page) is not a reply the page can read.
    if (!/^text\/event-stream\b/i.test(answer.header('content-type') ?? '')) {
      exchange.end();
      await answer.discard();
      return done(apiError(c, 502, 'upstream_invalid', 'The language model sent no event stream.'), 'invalid');
    }
    // Passed through chunk by chunk as it arrives (no buffering), under the same abort signal and a deadline that
    // each chunk restarts.
    const token = await feedback?.issue(sources, knowledge !== undefined);
    let pieces = 0;
    const relayed = relayStream(
      answer.chunks(),
      {
        onChunk: () => {
          if (pieces++ === 0) firstPiece();
          exchange.stillComing();
        },
        onUsage: recordUsage,
        onEnd: () => exchange.end(),
        visitorLeft: () => exchange.stopped === 'visitor-left',
        log,
      },
      sources,
      token,
    );
    countAnswer();
    const headers = { 'Content-Type': 'text/event-stream', 'X-Accel-Buffering': 'no' };
    // X-Accel-Buffering tells nginx-style reverse proxies not to buffer the stream either.
    return done(new Response(relayed, { status: 200, headers }), 'stream');
  }

  // Read up to the same bound as a stream: a provider cannot make the server hold an endless body.
  let completion: unknown;
  let text: string | 'too-large';
  try {
    text = await readBounded(answer, MAX_REPLY_BYTES);
    completion = text === 'too-large' ? undefined : JSON.parse(text);
  } catch {
    if (exchange.signal.aborted) return failed();
    exchange.end();
    return done(apiError(c, 502, 'upstream_invalid', 'The language model sent an unreadable answer.'), 'invalid');
  }
  exchange.end();
  if (text === 'too-large') {
    // Like a stream cut short: its reservation under the cap stands.
    return done(
      apiError(c, 502, 'upstream_invalid', 'The language model sent an unreadable answer.'),
      `invalid: reply over ${MAX_REPLY_BYTES} bytes`,
    );
  }
  const error = (completion as { error?: unknown } | null)?.error;
  if (error !== undefined && error !== null) {
    return done(
      apiError(c, 502, 'upstream_error', 'The language model provider failed.'),
      `upstream-error ${describeProviderError(error)}`,
    );
  }
  const usage = readUsage((completion as { usage?: unknown } | null)?.usage);
  if (usage) await recordUsage(usage);
  firstPiece();
  countAnswer();
  const token = await feedback?.issue(sources, knowledge !== undefined);
  return done(c.json(rebuildCompletion(completion, sources, token), 200), 'ok');
}
