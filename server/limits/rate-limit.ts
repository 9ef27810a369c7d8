import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { rateLimiter, type Store } from 'hono-rate-limiter';
import { LIMIT_ERROR_CODES } from '../../contract/llm.ts';
import { apiError, refusalLine } from '../api-error.ts';
import type { ServerEnv } from '../hono-env.ts';
import type { Metrics } from '../metrics.ts';
import { oncePerWindow } from '../once-per-window.ts';
import { clientAddress, clientAddressBehind, clientKey, trustedProxyList } from './client-key.ts';
import type { Counters } from './counters.ts';

const WINDOW_MS = 60_000;

/**
 * hono-rate-limiter's store over `counters`: fixed windows aligned on the clock, so that replicas counting in one
 * Redis agree on when a window starts.
 */
function counterStore(counters: Counters, windowMs: number): Store<ServerEnv> {
  const window = () => (Math.floor(Date.now() / windowMs) + 1) * windowMs;
  return {
    async increment(key) {
      const resetAt = window();
      const totalHits = (await counters.add(`rate:${resetAt}:${key}`, 1, resetAt)) ?? 0;
      return { totalHits, resetTime: new Date(resetAt) };
    },
    async decrement(key) {
      const resetAt = window();
      await counters.add(`rate:${resetAt}:${key}`, -1, resetAt);
    },
    resetKey: () => undefined,
  };
}

/** The limits' options, as the app is given them (composed with the other rooms' in server/app-options.ts). */
export interface LimitOptions {
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
  /**
   * Tokens per UTC day: each provider call reserves the most it can cost first, and gets 429 until midnight when that
   * would pass the cap; the reservation is then settled to the reported usage. 0 or unset: no cap.
   */
  dailyTokenLimit?: number;
  /** Largest accepted request body in bytes. */
  maxBodyBytes?: number;
  metrics?: Metrics;
}

type RateLimitOptions = Pick<LimitOptions, 'rateLimitPerMinute' | 'trustProxyHops' | 'trustedProxies' | 'metrics'>;

/** Who a request comes from, as the rate limit counts it: its socket address, or what trusted proxies forwarded. */
export function clientKeyOf(
  options: Pick<LimitOptions, 'trustProxyHops' | 'trustedProxies'>,
  trustedProxies = options.trustedProxies?.length ? trustedProxyList(options.trustedProxies) : undefined,
): (c: Context<ServerEnv>) => string {
  return (c) => {
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
  };
}

/**
 * Chat requests per client per minute, the client being its socket address or, behind trusted proxies, the address
 * they forwarded. Also says once in the log when requests carry `X-Forwarded-For` that no setting trusts: every
 * visitor behind that proxy then shares one limit. Returns the middlewares to run, in order.
 */
export function rateLimit(
  options: RateLimitOptions,
  counters: Counters,
  log: (line: string) => void,
): MiddlewareHandler<ServerEnv>[] {
  const trustedProxies = options.trustedProxies?.length ? trustedProxyList(options.trustedProxies) : undefined;
  let warnedForwarded = options.trustProxyHops > 0 || trustedProxies !== undefined;
  const warnOnce: MiddlewareHandler<ServerEnv> = async (c, next) => {
    if (!warnedForwarded && c.req.header('x-forwarded-for')) {
      warnedForwarded = true;
      log(
        '[server] requests carry X-Forwarded-For but TRUST_PROXY trusts no proxy: every visitor behind that proxy ' +
          "shares one rate limit. Set TRUST_PROXY to the proxies' addresses (or their number).",
      );
    }
    await next();
  };
  if (options.rateLimitPerMinute <= 0) return [warnOnce];

  const keyOf = clientKeyOf(options, trustedProxies);
  const firstThisMinute = oncePerWindow(WINDOW_MS);
  const limiter = rateLimiter<ServerEnv>({
    windowMs: WINDOW_MS,
    limit: options.rateLimitPerMinute,
    standardHeaders: 'draft-6',
    store: counterStore(counters, WINDOW_MS),
    keyGenerator: keyOf,
    handler: (c) => {
      // One line per client per minute: a client hammering the limit must not flood the log as well.
      if (firstThisMinute(keyOf(c))) {
        log(refusalLine(c, 429, LIMIT_ERROR_CODES.rate, ' (this client is not logged again for a minute)'));
      }
      options.metrics?.rateLimited.inc({ reason: 'rate_limit' });
      return apiError(c, 429, LIMIT_ERROR_CODES.rate, 'Too many requests, please try again later.');
    },
  });
  return [warnOnce, limiter];
}
