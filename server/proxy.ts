import type { HttpBindings } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { rateLimiter, type Store } from 'hono-rate-limiter';
import { Agent, request as sendRequest } from 'undici';
import { CHAT_COMPLETIONS_PATH, PROXY_BASE_PATH } from '../contract/llm.ts';
import { type ChatRequest, parseChatRequest } from './chat-request.ts';
import { clientAddress, clientAddressBehind, clientKey, trustedProxyList } from './client-key.ts';
import { type Counters, MemoryCounters, RedisCounters } from './counters.ts';
import { DEMO_MODEL, demoResponse } from './demo-responder.ts';
import type { Metrics } from './metrics.ts';
import { headersForPath, type SecurityOptions, securityHeaders } from './security-headers.ts';
import { serveClient } from './serve-client.ts';
import { readUsage, SpendCap, type TokenUsage } from './spend-cap.ts';

/**
 * Where chat requests go: an OpenAI-compatible provider holding the token, the built-in demo responder, or nowhere
 * (a direct-mode build, whose page calls its provider itself: the server then offers no chat endpoint).
 */
export type Upstream =
  | { kind: 'provider'; baseURL: string; apiKey: string; model: string }
  | { kind: 'demo' }
  | { kind: 'none' };

/** Everything the server does, decided by its caller: nothing in here reads `process.env`. */
export interface ProxyOptions {
  upstream: Upstream;
  /** How long one upstream exchange may take, body included, before the client gets a 504. */
  timeoutMs: number;
  /** Chat requests per client per minute; `0` turns the limit off. */
  rateLimitPerMinute: number;
  /** How many reverse proxies in front of this server append to `X-Forwarded-For` (0: use the socket address). */
  trustProxyHops: number;
  /**
   * The reverse proxies in front, by address or CIDR range; when given, it replaces `trustProxyHops`: a forwarded
   * address counts only when the connecting peer is one of them.
   */
  trustedProxies?: string[];
  /** Where rate-limit hits and spent tokens are counted: this process's memory by default, or Redis. */
  counters?: Counters;
  /** Tokens per UTC day, as the provider reports them; past it chat gets 429 until midnight. 0 or unset: no cap. */
  dailyTokenLimit?: number;
  metrics?: Metrics;
  security: SecurityOptions;
  /** The built client (`dist/client`) to serve next to the proxy; left out in Vite's dev and preview servers. */
  clientDir?: string;
  /** Largest accepted request body in bytes. */
  maxBodyBytes?: number;
  /** One line per proxied request and per problem; never message contents or the token. */
  log?: (line: string) => void;
}

/** 256 KiB: far above any chat message a person types, far below what could tie up the server. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

type ErrorCode =
  | 'not_found'
  | 'forbidden_origin'
  | 'unsupported_media_type'
  | 'invalid_body'
  | 'body_too_large'
  | 'rate_limited'
  | 'daily_token_limit'
  | 'upstream_error'
  | 'upstream_invalid'
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'internal_error';

/**
 * Every server running the app is @hono/node-server's (`listen`, and `getRequestListener` in Vite's): each request
 * comes with Node's own request and response.
 */
export type ServerEnv = { Bindings: HttpBindings };

/** An OpenAI-style error body, which the app's openai client reads like a provider's. */
function apiError(c: Context, status: ContentfulStatusCode, code: ErrorCode, message: string): Response {
  const type = status === 429 ? 'rate_limit_error' : status < 500 ? 'invalid_request_error' : 'api_error';
  return c.json({ error: { message, type, code } }, status);
}

/** For log lines: the provider's host only (its URL's path or query could carry an account id). */
function upstreamLabel(upstream: Upstream): string {
  return upstream.kind === 'provider' ? new URL(upstream.baseURL).host : upstream.kind;
}

/**
 * hono-rate-limiter's store over `counters`: fixed windows aligned on the clock, so that replicas counting in one
 * Redis agree on when a window starts.
 */
function counterStore(counters: Counters, windowMs: number): Store {
  const window = () => (Math.floor(Date.now() / windowMs) + 1) * windowMs;
  return {
    async increment(key) {
      const resetAt = window();
      return { totalHits: await counters.add(`rate:${resetAt}:${key}`, 1, resetAt), resetTime: new Date(resetAt) };
    },
    async decrement(key) {
      const resetAt = window();
      await counters.add(`rate:${resetAt}:${key}`, -1, resetAt);
    },
    resetKey: () => undefined,
  };
}

/** What one chat exchange needs besides the request: the options, and where its usage and figures go. */
interface ChatContext {
  options: ProxyOptions;
  log: (line: string) => void;
  /** Settles once the usage is counted, so that the next request (on any replica) sees it. */
  recordUsage: (usage: TokenUsage) => Promise<void>;
}

/**
 * The one request handler of the site: the same-origin LLM proxy under `PROXY_BASE_PATH`, security headers on every
 * response, and (with `clientDir`) the built app. Vite's dev and preview servers and the production server all run
 * this app, so what is tested here is what runs everywhere.
 *
 * The proxy forwards only `POST /chat/completions`, with the token added server-side, the model pinned and the
 * body rebuilt (see `parseChatRequest`); everything else under the proxy path is a JSON 404. Upstream error bodies
 * never reach the client, only a generic error with the upstream status.
 */
export function createProxyApp(options: ProxyOptions): Hono<ServerEnv> {
  const log = options.log ?? ((line: string) => console.log(line));
  const headers = securityHeaders(options.security);
  const counters = options.counters ?? new MemoryCounters();
  const spendCap = options.dailyTokenLimit ? new SpendCap(options.dailyTokenLimit, counters) : undefined;
  const { metrics } = options;
  const app = new Hono<ServerEnv>();

  const recordUsage = async (usage: TokenUsage) => {
    metrics?.tokens.inc({ kind: 'prompt' }, usage.prompt);
    metrics?.tokens.inc({ kind: 'completion' }, usage.completion);
    if (!spendCap) return;
    try {
      const today = await spendCap.record(usage.total);
      log(`[llm-proxy] usage tokens=${usage.total} today=${today}/${spendCap.dailyLimit}`);
    } catch (error) {
      log(`[llm-proxy] usage not counted (${(error as Error).name})`);
    }
  };

  // Set on Node's response before anything answers (what a handler sets itself still wins): setting them on each web
  // Response afterwards made it build and validate a Headers object per response.
  app.use('*', async (c, next) => {
    const forPath = Object.entries(headersForPath(headers, c.req.path));
    for (const [name, value] of forPath) c.env.outgoing.setHeader(name, value);
    await next();
  });

  // Liveness: the process answers. Readiness: it can serve chat as configured (Redis reachable when it is set; without
  // it chat still works on per-process limits, but a balancer should prefer a replica that shares them).
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    const redis = counters instanceof RedisCounters ? (counters.reachable ? 'reachable' : 'unreachable') : 'not used';
    const ready = redis !== 'unreachable';
    return c.json({ status: ready ? 'ready' : 'not ready', upstream: options.upstream.kind, redis }, ready ? 200 : 503);
  });

  const api = new Hono<ServerEnv>();
  api.use('*', async (c, next) => {
    // Answers are per visitor and per message: no cache may keep them.
    c.env.outgoing.setHeader('Cache-Control', 'no-store');
    await next();
  });

  // Browsers mark every request with where it came from; a page on another site must not spend this site's quota.
  // There is no CORS either, so a foreign page's JSON request already fails its preflight; this also stops the
  // "simple" requests that skip the preflight.
  api.use('*', async (c, next) => {
    const site = c.req.header('sec-fetch-site');
    if (site && site !== 'same-origin' && site !== 'none') {
      return apiError(c, 403, 'forbidden_origin', 'Requests from other sites are not allowed.');
    }
    await next();
  });

  if (options.upstream.kind !== 'none') registerChat(api, { options, log, recordUsage }, counters, spendCap);

  api.all('*', (c) => apiError(c, 404, 'not_found', 'Not found.'));

  app.route(PROXY_BASE_PATH, api);

  if (options.clientDir) serveClient(app, options.clientDir);

  app.notFound((c) =>
    c.req.path.startsWith('/api/') ? apiError(c, 404, 'not_found', 'Not found.') : c.text('Not found', 404),
  );
  app.onError((error, c) => {
    // The message may come from a library and is not the client's business; the name is enough to start looking.
    log(`[server] ${c.req.method} ${c.req.path} 500 ${error.name}`);
    return apiError(c, 500, 'internal_error', 'Internal server error.');
  });
  return app;
}

/** `POST /chat/completions`: counted, rate limited, capped, size limited, then forwarded. */
function registerChat(
  api: Hono<ServerEnv>,
  chat: ChatContext,
  counters: Counters,
  spendCap: SpendCap | undefined,
): void {
  const { options, log } = chat;
  const { metrics } = options;
  const trustedProxies = options.trustedProxies?.length ? trustedProxyList(options.trustedProxies) : undefined;
  let warnedForwarded = options.trustProxyHops > 0 || trustedProxies !== undefined;

  api.post('/chat/completions', async (c, next) => {
    if (!warnedForwarded && c.req.header('x-forwarded-for')) {
      warnedForwarded = true;
      log(
        '[server] requests carry X-Forwarded-For but TRUST_PROXY trusts no proxy: every visitor behind that proxy ' +
          "shares one rate limit. Set TRUST_PROXY to the proxies' addresses (or their number).",
      );
    }
    await next();
    metrics?.chatRequests.inc({ status: String(c.res.status) });
  });

  if (options.rateLimitPerMinute > 0) {
    api.post(
      '/chat/completions',
      rateLimiter({
        windowMs: 60_000,
        limit: options.rateLimitPerMinute,
        standardHeaders: 'draft-6',
        store: counterStore(counters, 60_000),
        keyGenerator: (c) => {
          let socketAddress: string | undefined;
          try {
            socketAddress = getConnInfo(c).remote.address;
          } catch {
            // Not served by @hono/node-server (e.g. `app.request()` in a script): every caller shares one key.
          }
          const forwardedFor = c.req.header('x-forwarded-for');
          return clientKey(
            trustedProxies
              ? clientAddressBehind(socketAddress, forwardedFor, trustedProxies)
              : clientAddress(socketAddress, forwardedFor, options.trustProxyHops),
          );
        },
        handler: (c) => {
          log(`[llm-proxy] POST ${CHAT_COMPLETIONS_PATH} 429 rate limited`);
          metrics?.rateLimited.inc({ reason: 'rate_limit' });
          return apiError(c, 429, 'rate_limited', 'Too many requests, please try again later.');
        },
      }),
    );
  }

  if (spendCap) {
    api.post('/chat/completions', async (c, next) => {
      const retryAfter = await spendCap.refusal();
      if (retryAfter === undefined) return next();
      log(`[llm-proxy] POST ${CHAT_COMPLETIONS_PATH} 429 daily token limit (${spendCap.dailyLimit}) reached`);
      metrics?.rateLimited.inc({ reason: 'spend_cap' });
      const answer = apiError(c, 429, 'daily_token_limit', 'The daily usage limit is reached, please come back later.');
      answer.headers.set('Retry-After', String(retryAfter));
      return answer;
    });
  }

  const maxSize = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tooLarge = (c: Context) => apiError(c, 413, 'body_too_large', 'The request body is too large.');
  const countedLimit = bodyLimit({ maxSize, onError: tooLarge });
  api.post(
    '/chat/completions',
    (c, next) => {
      // A declared size is checked as declared (Node's parser reads no further than it). Only a body of unknown
      // length goes through Hono's bodyLimit, which counts it as it streams: it builds a web Request and a stream
      // for every request, which was about a tenth of the proxy's CPU per request under load.
      const declared = c.req.header('content-length');
      if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return countedLimit(c, next);
      return Number(declared) > maxSize ? tooLarge(c) : next();
    },
    (c) => forwardChat(c, chat),
  );
}

async function forwardChat(c: Context<ServerEnv>, { options, log, recordUsage }: ChatContext): Promise<Response> {
  const started = Date.now();
  const { upstream, metrics } = options;
  if (upstream.kind === 'none') return apiError(c, 404, 'not_found', 'Not found.');
  const done = (response: Response, note: string) => {
    log(
      `[llm-proxy] POST ${CHAT_COMPLETIONS_PATH} ${response.status} ${Date.now() - started}ms ` +
        `upstream=${upstreamLabel(upstream)} ${note}`,
    );
    return response;
  };

  const contentType = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    return done(apiError(c, 415, 'unsupported_media_type', 'Send the request as application/json.'), 'refused');
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return done(apiError(c, 400, 'invalid_body', 'The body is not valid JSON.'), 'refused');
  }
  const parsed = parseChatRequest(body, upstream.kind === 'demo' ? DEMO_MODEL : upstream.model);
  if (!parsed.ok) return done(apiError(c, 400, 'invalid_body', parsed.reason), 'refused');
  const request = parsed.request;

  // One signal for both reasons to stop: the visitor went away (no one would read the answer, so no provider work
  // is left running for nobody) or the provider took too long. A stream's deadline restarts with each chunk, as the
  // page's does: a long reply that keeps coming is not late, one that stops coming is.
  const stop = new AbortController();
  let stopped: 'visitor-left' | 'timeout' | undefined;
  const halt = (why: 'visitor-left' | 'timeout') => {
    stopped ??= why;
    stop.abort();
  };
  let timer = setTimeout(() => halt('timeout'), options.timeoutMs);
  const stillComing = () => {
    clearTimeout(timer);
    timer = setTimeout(() => halt('timeout'), options.timeoutMs);
  };
  onVisitorLeft(c, () => halt('visitor-left'));
  const { signal } = stop;
  const failed = () => {
    clearTimeout(timer);
    if (stopped === 'visitor-left') return done(apiError(c, 502, 'upstream_unavailable', 'Aborted.'), 'client-closed');
    if (stopped === 'timeout') {
      return done(apiError(c, 504, 'upstream_timeout', 'The language model did not answer in time.'), 'timeout');
    }
    return done(apiError(c, 502, 'upstream_unavailable', 'The language model could not be reached.'), 'unreachable');
  };

  const calledAt = performance.now();
  const upstreamDone = () => metrics?.upstreamDuration.observe((performance.now() - calledAt) / 1000);
  let response: UpstreamAnswer;
  try {
    response =
      upstream.kind === 'demo' ? answerOf(demoResponse(request)) : await callProvider(upstream, request, signal);
  } catch {
    upstreamDone();
    return failed();
  }

  if (response.status < 200 || response.status > 299) {
    upstreamDone();
    clearTimeout(timer);
    // Dropped rather than read: the provider's error text may quote the request or describe the account.
    await response.discard();
    if (response.status === 401 || response.status === 403) {
      log('[llm-proxy] the provider refused the token: check LLM_API_KEY and LLM_BASE_URL');
    }
    const status = response.status >= 400 && response.status <= 599 ? response.status : 502;
    const answer = apiError(c, status as ContentfulStatusCode, 'upstream_error', 'The language model provider failed.');
    const retryAfter = response.header('retry-after');
    if (status === 429 && retryAfter && /^\d+$/.test(retryAfter)) answer.headers.set('Retry-After', retryAfter);
    return done(answer, `upstream-status=${response.status}`);
  }

  if (request.stream) {
    // A stream was asked for: anything but an event stream (a JSON body, an HTML page) is not a reply the page can read.
    if (!/^text\/event-stream\b/i.test(response.header('content-type') ?? '')) {
      upstreamDone();
      clearTimeout(timer);
      await response.discard();
      return done(apiError(c, 502, 'upstream_invalid', 'The language model sent no event stream.'), 'invalid');
    }
    // Passed through chunk by chunk as it arrives (no buffering), under the same abort signal and a deadline that
    // each chunk restarts.
    const relayed = relayStream(response.chunks(), () => stopped === 'visitor-left', log, {
      onChunk: stillComing,
      onUsage: recordUsage,
      onEnd: () => {
        upstreamDone();
        clearTimeout(timer);
      },
    });
    return done(
      new Response(relayed, {
        status: 200,
        headers: {
          'Content-Type': 'text/event-stream',
          // Tells nginx-style reverse proxies not to buffer the stream either.
          'X-Accel-Buffering': 'no',
        },
      }),
      'stream',
    );
  }

  let completion: unknown;
  try {
    completion = await response.json();
  } catch {
    upstreamDone();
    if (signal.aborted) return failed();
    clearTimeout(timer);
    return done(apiError(c, 502, 'upstream_invalid', 'The language model sent an unreadable answer.'), 'invalid');
  }
  upstreamDone();
  clearTimeout(timer);
  const usage = readUsage((completion as { usage?: unknown } | null)?.usage);
  if (usage) await recordUsage(usage);
  return done(c.json(completion as object, 200), 'ok');
}

/**
 * Calls `leave` when the visitor's connection closes before the answer is complete (as @hono/node-server decides when
 * it aborts `c.req.raw.signal`, which would cost each request a web AbortController of its own).
 */
function onVisitorLeft({ env: { incoming, outgoing } }: Context<ServerEnv>, leave: () => void): void {
  outgoing.once('close', () => {
    if (incoming.errored || !outgoing.writableFinished) leave();
  });
}

/**
 * The provider's (or the demo's) answer, read only as far as the proxy needs it: its status, a header, then either the
 * whole body as JSON, the body piece by piece, or nothing of it.
 */
interface UpstreamAnswer {
  status: number;
  header(name: string): string | undefined;
  json(): Promise<unknown>;
  chunks(): AsyncIterator<Uint8Array>;
  /** Drops the body unread (and with it the connection's remaining work). */
  discard(): Promise<void>;
}

/** The demo responder's answer, a web `Response`, as an {@link UpstreamAnswer}. */
function answerOf(response: Response): UpstreamAnswer {
  const body = response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    json: () => response.json(),
    chunks: () => body[Symbol.asyncIterator](),
    discard: () => body.cancel().catch(() => undefined),
  };
}

/** The event that ends a relayed stream whose provider broke off: the openai client reads it as a failed call. */
const STREAM_BROKE_OFF = new TextEncoder().encode(
  `data: ${JSON.stringify({ error: { message: 'The language model stream broke off.', type: 'upstream_error' } })}\n\n`,
);

/**
 * Takes the usage chunk (`stream_options.include_usage`) out of a server-sent-events stream: its count goes to
 * `onUsage`, and the page never sees it (it carries no choices, and no content for the visitor). Every other event is
 * passed on unchanged as soon as it is complete.
 */
export class UsageFilter {
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();
  private pending = '';
  /** The counting of the usage seen so far, to wait for before the end of the stream is passed on. */
  counted: Promise<void> = Promise.resolve();

  constructor(private readonly onUsage: (usage: TokenUsage) => Promise<void>) {}

  /** The complete events of `chunk` (and of what came before it) to pass on; `undefined` when there are none yet. */
  push(chunk: Uint8Array): Uint8Array | undefined {
    this.pending += this.decoder.decode(chunk, { stream: true });
    const events = this.pending.split(/\r?\n\r?\n/);
    this.pending = events.pop() ?? '';
    let out = '';
    for (const event of events) {
      // Only an event that mentions usage is parsed: the content chunks go through as text.
      if (!event.includes('"usage"') || !this.isUsageOnly(event)) out += `${event}\n\n`;
    }
    return out ? this.encoder.encode(out) : undefined;
  }

  /** Whatever is left at the end of the stream (an unterminated last event), as it came. */
  flush(): Uint8Array | undefined {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    return rest ? this.encoder.encode(rest) : undefined;
  }

  private isUsageOnly(event: string): boolean {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .join('\n');
    let parsed: { usage?: unknown; choices?: unknown } | null;
    try {
      parsed = JSON.parse(data);
    } catch {
      return false;
    }
    const usage = readUsage(parsed?.usage);
    if (usage) this.counted = this.onUsage(usage);
    return usage !== undefined && (!Array.isArray(parsed?.choices) || parsed.choices.length === 0);
  }
}

/**
 * The provider's stream, read only as fast as the client takes it. When the visitor leaves, the abort has already
 * cancelled the upstream request; the stream then just ends, rather than surfacing as an error nobody can receive.
 */
function relayStream(
  body: AsyncIterator<Uint8Array>,
  visitorLeft: () => boolean,
  log: (line: string) => void,
  {
    onChunk,
    onUsage,
    onEnd,
  }: { onChunk: () => void; onUsage: (usage: TokenUsage) => Promise<void>; onEnd: () => void },
): ReadableStream<Uint8Array> {
  const filter = new UsageFilter(onUsage);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Until a complete event arrives there is nothing to pass on; a pull must enqueue or close to be called again.
        for (;;) {
          const { done, value } = await body.next();
          if (done) {
            onEnd();
            const rest = filter.flush();
            if (rest) controller.enqueue(rest);
            controller.close();
            return;
          }
          onChunk();
          const events = filter.push(value);
          if (events) {
            // The page sees the end of a reply only once its tokens are counted: its next message meets the cap.
            await filter.counted;
            controller.enqueue(events);
            return;
          }
        }
      } catch (error) {
        onEnd();
        if (visitorLeft()) {
          controller.close();
          return;
        }
        log(`[llm-proxy] stream from the provider broke off (${(error as Error).name})`);
        // Said in the stream, as providers say a failure mid-stream, and the stream then ends properly. Erroring the
        // response instead would destroy the connection, and with it the last pieces still on their way out.
        controller.enqueue(STREAM_BROKE_OFF);
        controller.close();
      }
    },
    async cancel() {
      onEnd();
      await body.return?.();
    },
  });
}

/**
 * Keeps connections to the provider open between requests. undici's `request` rather than `fetch`: without the WHATWG
 * request and stream layers, a call costs about a third of the CPU (measured here: 0.09 against 0.29 ms per call).
 */
const providerAgent = new Agent({ keepAliveTimeout: 30_000 });

async function callProvider(
  upstream: Extract<Upstream, { kind: 'provider' }>,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  // Appended to the path, so a query some providers need (e.g. `?api-version=`) stays a query.
  const url = new URL(upstream.baseURL);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  // No redirect is followed (undici's `request` follows none): the token would go wherever one points. A 3xx is a
  // failed call like any other status outside 2xx.
  const { statusCode, headers, body } = await sendRequest(url, {
    method: 'POST',
    // Only these headers: nothing from the visitor (cookies, their placeholder key, addresses) is passed on.
    headers: {
      authorization: `Bearer ${upstream.apiKey}`,
      'content-type': 'application/json',
      accept: request.stream ? 'text/event-stream' : 'application/json',
    },
    body: JSON.stringify(request),
    signal,
    dispatcher: providerAgent,
  });
  return {
    status: statusCode,
    header: (name) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    json: () => body.json(),
    chunks: () => body[Symbol.asyncIterator](),
    discard: async () => {
      // Destroyed unread, undici's body emits an abort error: handled here, or it would take the process down.
      body.on('error', () => undefined);
      body.destroy();
    },
  };
}
