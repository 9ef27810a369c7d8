import {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
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
  timeoutMs: number;
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

/** Reads the build-time `VITE_LLM_*` variables; without `VITE_LLM_API_KEY` the app uses the same-origin proxy. */
export function readLlmConfig(env: ImportMetaEnv, origin: string): LlmConfig {
  const apiKey = env.VITE_LLM_API_KEY?.trim();
  const shared = {
    model: env.VITE_LLM_MODEL?.trim() || DEFAULT_MODEL,
    timeoutMs: timerMs(env.VITE_LLM_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    maxTokens: MAX_TOKENS,
    temperature: TEMPERATURE,
  };
  if (!apiKey) {
    return { mode: 'proxy', baseURL: origin + PROXY_BASE_PATH, apiKey: PROXY_PLACEHOLDER_KEY, ...shared };
  }
  return { mode: 'direct', baseURL: env.VITE_LLM_BASE_URL?.trim() || DEFAULT_BASE_URL, apiKey, ...shared };
}
