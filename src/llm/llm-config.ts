import { DEFAULT_BASE_URL, DEFAULT_MODEL, MAX_TOKENS, PROXY_BASE_PATH, TEMPERATURE } from '../../contract/llm';
import { type ReplyTimers, readReplyTimers } from './reply-timers';
import { serverPath } from './server-path';

// Read by the request's lazy chunk (request-reply.ts), not at start-up: of the configuration, start-up needs only the
// machine's delays (`readReplyTimers`).

/** How the browser reaches the model. */
export interface LlmConfig extends ReplyTimers {
  /** `proxy`: the page's own server holds the token. `direct`: the token is embedded in the bundle (the spec's mode). */
  mode: 'proxy' | 'direct';
  baseURL: string;
  apiKey: string;
  model: string;
  /** Whether the reply is asked for as a stream (`stream: true`) and shown as it is written. */
  stream: boolean;
  /** The spec's fixed request parameters. */
  maxTokens: number;
  temperature: number;
}

/** Sent in proxy mode, where the server replaces it with the real token; the openai client insists on some key. */
export const PROXY_PLACEHOLDER_KEY = 'same-origin-proxy';

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
    ...readReplyTimers(env),
    maxTokens: MAX_TOKENS,
    temperature: TEMPERATURE,
  };
  if (!apiKey) {
    return {
      mode: 'proxy',
      baseURL: origin + serverPath(PROXY_BASE_PATH, env.BASE_URL),
      apiKey: PROXY_PLACEHOLDER_KEY,
      ...shared,
    };
  }
  return { mode: 'direct', baseURL: env.VITE_LLM_BASE_URL?.trim() || DEFAULT_BASE_URL, apiKey, ...shared };
}
