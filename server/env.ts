import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_PROXY_TIMEOUT_MS } from '../contract/llm.ts';
import { trustedProxyList } from './client-key.ts';
import type { ProxyOptions, Upstream } from './hono-env.ts';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './listen.ts';
import { DEFAULT_FRAME_ANCESTORS, parseSourceList } from './security-headers.ts';

/** Variables as read from `process.env` or Vite's `loadEnv`. */
export type Env = Record<string, string | undefined>;

/** The production server's port when `PORT` is unset. */
export const DEFAULT_PORT = 3000;
/** All interfaces: a production server usually runs in a container or behind a reverse proxy that must reach it. */
export const DEFAULT_HOST = '0.0.0.0';
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 20;
/** Metrics are for the operator's scraper on the same host (or a sidecar), not for the public. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** The server's settings, ready for `createApp` and `listen`. */
export interface ServerConfig {
  port: number;
  host: string;
  proxy: Omit<ProxyOptions, 'clientDir' | 'log' | 'counters' | 'metrics'>;
  /** How long a client may take to send a request, and how many connections may be open at once. */
  connections: ConnectionLimits;
  /** Where rate limits and the spend cap are shared (`REDIS_URL`); unset: in this process's memory. */
  redisUrl?: string;
  /** The Prometheus listener (`METRICS_PORT`, `METRICS_HOST`); unset: no metrics. */
  metrics?: { port: number; host: string };
  /** Things worth saying at start-up (never secrets). */
  notices: string[];
}

/** Thrown with every problem found in the environment at once, so one restart fixes them all. */
export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid server configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

function flag(env: Env, name: string, problems: string[]): boolean {
  const value = env[name]?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  problems.push(`${name} must be 1 or 0 (got "${env[name]}")`);
  return false;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  // Decimal digits only: Number() would also take `1e3`, `0x10` or `8.0`, which nobody writes on purpose.
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return value;
}

function sources(env: Env, name: string, fallback: string[], problems: string[]): string[] {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  try {
    return parseSourceList(raw, name);
  } catch (error) {
    problems.push((error as Error).message);
    return fallback;
  }
}

// An IP address or a DNS name: what `listen` can bind to.
const HOST_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

function host(env: Env, name: string, fallback: string, problems: string[]): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (isIP(raw) === 0 && !HOST_PATTERN.test(raw)) {
    problems.push(`${name} must be an IP address or a host name such as 127.0.0.1 (got "${raw}")`);
    return fallback;
  }
  return raw;
}

/** `HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS` and `MAX_CONNECTIONS`. */
function connectionLimits(env: Env, problems: string[]): ConnectionLimits {
  const limits: ConnectionLimits = {
    headersTimeoutMs: integer(
      env,
      'HEADERS_TIMEOUT_MS',
      DEFAULT_CONNECTION_LIMITS.headersTimeoutMs,
      1000,
      600_000,
      problems,
    ),
    requestTimeoutMs: integer(
      env,
      'REQUEST_TIMEOUT_MS',
      DEFAULT_CONNECTION_LIMITS.requestTimeoutMs,
      1000,
      600_000,
      problems,
    ),
    maxConnections: integer(env, 'MAX_CONNECTIONS', DEFAULT_CONNECTION_LIMITS.maxConnections, 0, 1_000_000, problems),
  };
  // The headers are part of the request: a longer allowance for them than for the whole request would never apply.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not be longer than REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
}

/** A provider reached over plain http beyond this machine sees the token and every message in clear on the way. */
function plainHttpNotice(name: string, url: URL, notices: string[]): void {
  if (url.protocol !== 'http:' || isLoopback(url.hostname)) return;
  notices.push(
    `${name} is plain http to ${url.host}: the provider token and every message cross the network unencrypted. ` +
      'Use https unless that host is on a network you trust.',
  );
}

function baseURL(env: Env, problems: string[], notices: string[]): string {
  const raw = env.LLM_BASE_URL?.trim() || DEFAULT_BASE_URL;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
    plainHttpNotice('LLM_BASE_URL', url, notices);
    if (url.username || url.password) {
      // fetch refuses such URLs, and they would be printed in the start-up line.
      problems.push('LLM_BASE_URL must not contain credentials: put the token in LLM_API_KEY');
    }
    return raw;
  } catch {
    problems.push(`LLM_BASE_URL must be an http(s) URL such as ${DEFAULT_BASE_URL} (got "${raw}")`);
    return DEFAULT_BASE_URL;
  }
}

/**
 * Reads the server's variables (see `.env.example`) into options, validating all of them.
 *
 * Without `LLM_API_KEY` the server refuses to start unless `LLM_DEMO=1` asks for the demo responder, so a production
 * deployment never answers visitors with demo text by accident; `demoFallback` (Vite's dev and preview servers)
 * turns that refusal into the demo responder with a notice instead.
 */
export function readServerEnv(
  env: Env,
  { demoFallback = false, directBuild }: { demoFallback?: boolean; directBuild?: DirectBuild } = {},
): ServerConfig {
  const problems: string[] = [];
  const notices: string[] = [];

  const demo = flag(env, 'LLM_DEMO', problems);
  const apiKey = env.LLM_API_KEY?.trim() ?? '';
  const model = env.LLM_MODEL?.trim() || DEFAULT_MODEL;
  const url = baseURL(env, problems, notices);

  let upstream: Upstream;
  if (demo) {
    upstream = { kind: 'demo' };
    if (apiKey) notices.push('LLM_DEMO=1 is set, so LLM_API_KEY is ignored and the demo responder answers.');
  } else if (apiKey) {
    upstream = { kind: 'provider', baseURL: url, apiKey, model };
  } else if (directBuild) {
    // The page calls its provider itself: there is nothing to proxy, and no server token to ask for.
    upstream = { kind: 'none' };
  } else if (demoFallback) {
    upstream = { kind: 'demo' };
    notices.push(
      'No LLM_API_KEY is set, so the built-in demo responder answers chat requests. ' +
        'Put LLM_API_KEY (and optionally LLM_BASE_URL, LLM_MODEL) in .env to talk to a real model.',
    );
  } else {
    upstream = { kind: 'demo' };
    problems.push('LLM_API_KEY is not set. Set it to the provider token, or set LLM_DEMO=1 to run the demo responder.');
  }

  if (directBuild) {
    notices.push(
      `This is a direct-mode build: the page calls ${directBuild.providerOrigin} itself with the provider token ` +
        'embedded in its JavaScript, where every visitor can read it. Rebuild without VITE_LLM_API_KEY (proxy mode) ' +
        'to keep the token secret.',
    );
    plainHttpNotice("The direct-mode build's VITE_LLM_BASE_URL", new URL(directBuild.providerOrigin), notices);
  }
  const connectSrc = sources(env, 'CSP_CONNECT_SRC', [], problems);
  if (directBuild && !connectSrc.includes(directBuild.providerOrigin)) connectSrc.push(directBuild.providerOrigin);

  const trust = readTrustProxy(env, problems);
  const metricsPort = integer(env, 'METRICS_PORT', 0, 0, 65_535, problems);
  const config: ServerConfig = {
    port: integer(env, 'PORT', DEFAULT_PORT, 0, 65_535, problems),
    host: host(env, 'HOST', DEFAULT_HOST, problems),
    connections: connectionLimits(env, problems),
    proxy: {
      upstream,
      timeoutMs: integer(env, 'LLM_TIMEOUT_MS', DEFAULT_PROXY_TIMEOUT_MS, 1, 600_000, problems),
      rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT_PER_MINUTE, 0, 1_000_000, problems),
      trustProxyHops: typeof trust === 'number' ? trust : 0,
      ...(typeof trust === 'number' ? {} : { trustedProxies: trust }),
      dailyTokenLimit: integer(env, 'LLM_DAILY_TOKEN_LIMIT', 0, 0, Number.MAX_SAFE_INTEGER, problems),
      security: {
        frameAncestors: sources(env, 'FRAME_ANCESTORS', DEFAULT_FRAME_ANCESTORS, problems),
        connectSrc,
      },
    },
    notices,
  };
  const redisUrl = readRedisUrl(env, problems);
  if (redisUrl) config.redisUrl = redisUrl;
  // METRICS_PORT=0 cannot mean "any free port": nobody could find it to scrape.
  if (metricsPort > 0) {
    config.metrics = { port: metricsPort, host: host(env, 'METRICS_HOST', DEFAULT_METRICS_HOST, problems) };
    if (!isLoopbackHost(config.metrics.host)) {
      notices.push(`METRICS_HOST=${config.metrics.host}: the metrics are reachable beyond this machine.`);
    }
  }
  if (config.proxy.rateLimitPerMinute === 0)
    notices.push('RATE_LIMIT_PER_MINUTE=0: chat requests are not rate limited.');
  if (problems.length > 0) throw new EnvError(problems);
  return config;
}

/** A build made with `VITE_LLM_API_KEY`, as the client build records it (see `BUILD_INFO_FILE`). */
export interface DirectBuild {
  providerOrigin: string;
}

/**
 * `TRUST_PROXY`: a number of hops (`true` is one), or the proxies' addresses and CIDR ranges. Anything else stops the
 * server: a typo here must not trust the whole internet to say who each visitor is.
 */
function readTrustProxy(env: Env, problems: string[]): number | string[] {
  const raw = env.TRUST_PROXY?.trim().toLowerCase();
  if (raw === 'true') return 1;
  if (raw === 'false') return 0;
  if (raw && !/^\d+$/.test(raw)) {
    const entries = raw.split(/[\s,]+/).filter(Boolean);
    try {
      trustedProxyList(entries);
      return entries;
    } catch (error) {
      problems.push(
        `TRUST_PROXY must be a number of proxies or their addresses (got "${env.TRUST_PROXY?.trim()}"): ${(error as Error).message}`,
      );
      return 0;
    }
  }
  return integer(env, 'TRUST_PROXY', 0, 0, 10, problems);
}

function readRedisUrl(env: Env, problems: string[]): string | undefined {
  const raw = env.REDIS_URL?.trim();
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error();
    return raw;
  } catch {
    // The value may hold a password: it is not repeated.
    problems.push('REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379');
    return undefined;
  }
}

/** Whether an address given to the server is only reachable from this machine. */
export function isLoopbackHost(host: string): boolean {
  return isIP(host) !== 0 ? isLoopback(host) : host === 'localhost';
}

/** One line that says what the server forwards to: origin and path only, never the token. */
export function describeUpstream(upstream: Upstream): string {
  if (upstream.kind === 'demo') return 'demo responder (no provider; replies are canned)';
  if (upstream.kind === 'none') return 'direct-mode build (the page calls its provider itself; no chat proxy)';
  const url = new URL(upstream.baseURL);
  return `proxy to ${url.origin}${url.pathname.replace(/\/+$/, '')} (model ${upstream.model})`;
}

/**
 * Adds the variables of `.env` files in `dir` to `env` without overriding what is already set, in Vite's order for
 * `mode` (`.env.[mode].local`, `.env.[mode]`, `.env.local`, `.env`), so `npm start` reads the same `.env` as
 * `npm run dev`. Returns the files read.
 */
export function loadDotEnvFiles(env: Env, dir: string, mode = 'production'): string[] {
  const read: string[] = [];
  for (const name of [`.env.${mode}.local`, `.env.${mode}`, '.env.local', '.env']) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    read.push(name);
    for (const [key, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
      if (env[key] === undefined) env[key] = value;
    }
  }
  return read;
}
