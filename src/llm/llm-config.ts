import {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_SLOW_MS,
  DEFAULT_TIMEOUT_MS,
  MAX_TOKENS,
  PROXY_BASE_PATH,
  TEMPERATURE,
} from '../../contract/llm';

/** How the browser reaches the model. */
export interface LlmConfig {
  /** `proxy`: the page's own server holds the token. `direct`: the token is embedded in the bundle (the spec's mode). */
  mode: 'proxy' | 'direct';
  baseURL: string;
  apiKey: string;
  model: string;
  /** Whether the reply is asked for as a stream (`stream: true`) and shown as it is written. */
  stream: boolean;
  /** The reply's deadline: to the first piece (or the whole reply when not streamed), then between pieces. */
  timeoutMs: number;
  /** How long without a first piece before the visitor is told the model is still working. */
  slowMs: number;
  /** The spec's fixed request parameters. */
  maxTokens: number;
  temperature: number;
}

/** Sent in proxy mode, where the server replaces it with the real token; the openai client insists on some key. */
export const PROXY_PLACEHOLDER_KEY = 'same-origin-proxy';

// Timers take whole milliseconds up to 2^31 - 1: past that a browser's setTimeout fires at once, and a fraction or an
// overflow makes AbortSignal.timeout throw (Node) or time out at once, so every request would fail.
const MAX_TIMER_MS = 2_147_483_647;

function timerMs(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 && parsed <= MAX_TIMER_MS ? parsed : fallback;
}

function flag(value: string | undefined, fallback: boolean): boolean {
  const normalised = value?.trim().toLowerCase();
  if (normalised === 'true') return true;
  if (normalised === 'false') return false;
  return fallback;
}

/**
 * Reads the build-time `VITE_LLM_*` variables; without `VITE_LLM_API_KEY` the app uses the same-origin proxy.
 * Streaming (`VITE_LLM_STREAM`) is on by default through the proxy and off in direct mode, where the request stays
 * exactly the specification's.
 */
export function readLlmConfig(env: ImportMetaEnv, origin: string): LlmConfig {
  const apiKey = env.VITE_LLM_API_KEY?.trim();
  const mode = apiKey ? 'direct' : 'proxy';
  const shared = {
    model: env.VITE_LLM_MODEL?.trim() || DEFAULT_MODEL,
    stream: flag(env.VITE_LLM_STREAM, mode === 'proxy'),
    timeoutMs: timerMs(env.VITE_LLM_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    slowMs: timerMs(env.VITE_LLM_SLOW_MS, DEFAULT_SLOW_MS),
    maxTokens: MAX_TOKENS,
    temperature: TEMPERATURE,
  };
  if (!apiKey) {
    return { mode: 'proxy', baseURL: origin + PROXY_BASE_PATH, apiKey: PROXY_PLACEHOLDER_KEY, ...shared };
  }
  return { mode: 'direct', baseURL: env.VITE_LLM_BASE_URL?.trim() || DEFAULT_BASE_URL, apiKey, ...shared };
}

/** The host page the visitor is reading, as the embed loader names it: never its query or fragment. */
export interface HostPageContext {
  origin: string;
  path: string;
  title: string;
}

/**
 * With the site's `page_context`, the embed's host page, once the loader has named it (src/embed/host-page.ts): each
 * request then carries it as `page_context`, for the server to check and quote to the model. Unset everywhere else.
 * Here, in the entry chunk that the embed's chunk and the request's share, rather than in a chunk of its own.
 */
export const hostPageContext: { current?: HostPageContext } = {};
