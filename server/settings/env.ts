import { DEFAULT_PROXY_TIMEOUT_MS } from '../../contract/llm.ts';
import type { Upstream } from '../hono-env.ts';
import type { LimitOptions } from '../limits/limits.ts';
import { trustedProxyList } from '../limits/limits.ts';
import { DEFAULT_FRAME_ANCESTORS, type SecurityOptions } from '../pages/pages.ts';
import { readBasePath } from './base-path.ts';
import { type ConnectionLimits, connectionLimits } from './connection-limits.ts';
import { type ActionsEnv, readActionsEnv } from './env-actions.ts';
import { type HandoffEnv, readHandoffEnv } from './env-handoff.ts';
import { readStoreEnv, type StoreConfig } from './env-store.ts';
import { type DirectBuild, readUpstream } from './env-upstream.ts';
import { type Env, isLoopbackHost, readHost, readInteger, readSecret, readSourceList } from './env-values.ts';

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
  /** The app's options that come from the environment (see server/app-options.ts). */
  proxy: Omit<LimitOptions, 'counters' | 'metrics'> & {
    upstream: Upstream;
    timeoutMs: number;
    security: SecurityOptions;
    basePath?: string;
    ownerToken?: string;
  };
  /** How long a client may take to send a request, and how many connections may be open at once. */
  connections: ConnectionLimits;
  /** Where rate limits and the spend cap are shared (`REDIS_URL`); unset: in this process's memory. */
  redisUrl?: string;
  /** `DATA_DIR`, the one data folder (the owner's counts without Redis, the embedded knowledge store), and the
   * knowledge store's settings. */
  dataDir: string;
  store: StoreConfig;
  /** `FEEDBACK_SECRET`: signs reply tokens; unset, one is made and kept with the counts, the same for every replica. */
  feedbackSecret?: string;
  /** How messages to a person are sent (`SMTP_URL`, `HANDOFF_*`): used when the site's file has a `handoff:` block. */
  handoff: HandoffEnv;
  /** The actions' signing secret and how a visitor token is checked (`ACTIONS_SECRET`, `IDENTITY_*`). */
  actions: ActionsEnv;
  /** The Prometheus listener (`METRICS_PORT`, `METRICS_HOST`); unset: no metrics. */
  metrics?: { port: number; host: string };
  /** Where traces go (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`); unset: no traces, and no SDK loaded. */
  traces?: { endpoint: string; serviceName: string };
  /** Things worth saying at start-up (never secrets). */
  notices: string[];
}

/** Thrown with every problem found in the environment at once, so one restart fixes them all; one problem, one line. */
export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? `Invalid server configuration: ${problems[0]}`
        : `Invalid server configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'EnvError';
  }
}

/**
 * Reads the server's variables (see `.env.example`) into options, validating all of them: anything wrong throws one
 * `EnvError` naming every problem. `demoFallback` is for Vite's dev and preview servers, which answer with the demo
 * responder when no `LLM_API_KEY` is set instead of refusing to start (see `readUpstream`).
 */
export function readServerEnv(
  env: Env,
  { demoFallback = false, directBuild }: { demoFallback?: boolean; directBuild?: DirectBuild } = {},
): ServerConfig {
  const problems: string[] = [];
  const notices: string[] = [];

  const upstream = readUpstream(env, { demoFallback, directBuild }, problems, notices);
  const connectSrc = readSourceList(env, 'CSP_CONNECT_SRC', [], problems);
  if (directBuild && !connectSrc.includes(directBuild.providerOrigin)) connectSrc.push(directBuild.providerOrigin);

  const trust = readTrustProxy(env, problems);
  const metricsPort = readInteger(env, 'METRICS_PORT', 0, 0, 65_535, problems);
  const store = readStoreEnv(env, problems);
  const config: ServerConfig = {
    port: readInteger(env, 'PORT', DEFAULT_PORT, 0, 65_535, problems),
    host: readHost(env, 'HOST', DEFAULT_HOST, problems),
    connections: connectionLimits(env, problems),
    dataDir: store.dataDir,
    store,
    handoff: readHandoffEnv(env, problems),
    actions: readActionsEnv(env, problems),
    proxy: {
      basePath: readBasePath(env, problems),
      upstream,
      timeoutMs: readInteger(env, 'LLM_TIMEOUT_MS', DEFAULT_PROXY_TIMEOUT_MS, 1, 600_000, problems),
      rateLimitPerMinute: readInteger(
        env,
        'RATE_LIMIT_PER_MINUTE',
        DEFAULT_RATE_LIMIT_PER_MINUTE,
        0,
        1_000_000,
        problems,
      ),
      trustProxyHops: typeof trust === 'number' ? trust : 0,
      ...(typeof trust === 'number' ? {} : { trustedProxies: trust }),
      dailyTokenLimit: readInteger(env, 'LLM_DAILY_TOKEN_LIMIT', 0, 0, Number.MAX_SAFE_INTEGER, problems),
      security: {
        frameAncestors: readSourceList(env, 'FRAME_ANCESTORS', DEFAULT_FRAME_ANCESTORS, problems),
        connectSrc,
      },
    },
    notices,
  };
  const ownerToken = readSecret(env, 'OWNER_TOKEN', problems);
  if (ownerToken) config.proxy.ownerToken = ownerToken;
  const feedbackSecret = readSecret(env, 'FEEDBACK_SECRET', problems);
  if (feedbackSecret) config.feedbackSecret = feedbackSecret;
  const redisUrl = readRedisUrl(env, problems);
  if (redisUrl) config.redisUrl = redisUrl;
  // METRICS_PORT=0 cannot mean "any free port": nobody could find it to scrape.
  if (metricsPort > 0) {
    config.metrics = { port: metricsPort, host: readHost(env, 'METRICS_HOST', DEFAULT_METRICS_HOST, problems) };
    if (!isLoopbackHost(config.metrics.host)) {
      notices.push(`METRICS_HOST=${config.metrics.host}: the metrics are reachable beyond this machine.`);
    }
  }
  const traces = readTraces(env, problems);
  if (traces) config.traces = traces;
  const everySite = config.proxy.security.frameAncestors.filter(coversEverySite);
  if (everySite.length > 0) {
    notices.push(
      `FRAME_ANCESTORS=${everySite.join(' ')}: any site can then show the chat in a frame and spend the quota. ` +
        'List the sites that embed it instead, such as https://www.example.com.',
    );
  }
  if (config.proxy.rateLimitPerMinute === 0)
    notices.push('RATE_LIMIT_PER_MINUTE=0: chat requests are not rate limited.');
  if (problems.length > 0) throw new EnvError(problems);
  return config;
}

/**
 * Whether a `frame-ancestors` source lets every site frame the page: `*`, a scheme alone (`https:`, `data:`), or a
 * host wildcard that fixes nothing but a top-level label (`https://*`, `*.com`).
 */
function coversEverySite(source: string): boolean {
  if (source === '*' || /^[a-z][a-z0-9+.-]*:$/i.test(source)) return true;
  const host = source.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/(?::(?:\d+|\*))?\/?$/, '');
  return host === '*' || /^\*\.[a-z0-9-]+$/i.test(host);
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
  return readInteger(env, 'TRUST_PROXY', 0, 0, 10, problems);
}

/** The service name traces carry when `OTEL_SERVICE_NAME` is unset. */
export const DEFAULT_SERVICE_NAME = 'ai-assistant';

/** `OTEL_EXPORTER_OTLP_ENDPOINT`: an http(s) URL, the collector's base (the exporter appends `/v1/traces`). */
function readTraces(env: Env, problems: string[]): ServerConfig['traces'] {
  const raw = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!raw) return undefined;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    return { endpoint: raw, serviceName };
  } catch {
    // The value may hold a password: it is not repeated.
    problems.push('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL such as http://127.0.0.1:4318');
    return undefined;
  }
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
