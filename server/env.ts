import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_PROXY_TIMEOUT_MS } from '../contract/llm.ts';
import type { ProxyOptions, Upstream } from './proxy.ts';
import { DEFAULT_FRAME_ANCESTORS, parseSourceList } from './security-headers.ts';

/** Variables as read from `process.env` or Vite's `loadEnv`. */
export type Env = Record<string, string | undefined>;

/** The production server's port when `PORT` is unset. */
export const DEFAULT_PORT = 3000;
/** All interfaces: a production server usually runs in a container or behind a reverse proxy that must reach it. */
export const DEFAULT_HOST = '0.0.0.0';
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 20;

/** The server's settings, ready for `createProxyApp` and `listen`. */
export interface ServerConfig {
  port: number;
  host: string;
  proxy: Omit<ProxyOptions, 'clientDir' | 'log'>;
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
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
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

function baseURL(env: Env, problems: string[]): string {
  const raw = env.LLM_BASE_URL?.trim() || DEFAULT_BASE_URL;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
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
export function readServerEnv(env: Env, { demoFallback = false }: { demoFallback?: boolean } = {}): ServerConfig {
  const problems: string[] = [];
  const notices: string[] = [];

  const demo = flag(env, 'LLM_DEMO', problems);
  const apiKey = env.LLM_API_KEY?.trim() ?? '';
  const model = env.LLM_MODEL?.trim() || DEFAULT_MODEL;
  const url = baseURL(env, problems);

  let upstream: Upstream;
  if (demo) {
    upstream = { kind: 'demo' };
    if (apiKey) notices.push('LLM_DEMO=1 is set, so LLM_API_KEY is ignored and the demo responder answers.');
  } else if (apiKey) {
    upstream = { kind: 'provider', baseURL: url, apiKey, model };
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

  const config: ServerConfig = {
    port: integer(env, 'PORT', DEFAULT_PORT, 0, 65_535, problems),
    host: env.HOST?.trim() || DEFAULT_HOST,
    proxy: {
      upstream,
      timeoutMs: integer(env, 'LLM_TIMEOUT_MS', DEFAULT_PROXY_TIMEOUT_MS, 1, 600_000, problems),
      rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT_PER_MINUTE, 0, 1_000_000, problems),
      trustProxyHops: readTrustProxy(env, problems),
      security: {
        frameAncestors: sources(env, 'FRAME_ANCESTORS', DEFAULT_FRAME_ANCESTORS, problems),
        connectSrc: sources(env, 'CSP_CONNECT_SRC', [], problems),
      },
    },
    notices,
  };
  if (config.proxy.rateLimitPerMinute === 0)
    notices.push('RATE_LIMIT_PER_MINUTE=0: chat requests are not rate limited.');
  if (problems.length > 0) throw new EnvError(problems);
  return config;
}

function readTrustProxy(env: Env, problems: string[]): number {
  const raw = env.TRUST_PROXY?.trim().toLowerCase();
  if (raw === 'true') return 1;
  if (raw === 'false') return 0;
  return integer(env, 'TRUST_PROXY', 0, 0, 10, problems);
}

/** One line that says what the server forwards to: origin and path only, never the token. */
export function describeUpstream(upstream: Upstream): string {
  if (upstream.kind === 'demo') return 'demo responder (no provider; replies are canned)';
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
