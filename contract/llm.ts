// Plain constants shared by the app (src/) and the server (server/). No imports: both sides may use it.

/** The same-origin path under which the server offers the OpenAI-compatible proxy. */
export const PROXY_BASE_PATH = '/api/llm/v1';

/** The spec's business constants for every chat request. */
export const MAX_TOKENS = 250;
export const TEMPERATURE = 0.7;

/** Defaults: a hosted OpenAI-compatible provider and an instruct-tuned 7B open model it serves. */
export const DEFAULT_BASE_URL = 'https://router.huggingface.co/v1';
export const DEFAULT_MODEL = 'Qwen/Qwen2.5-7B-Instruct';
/** The page's time limit for one reply, from the submit. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * The proxy's own upstream limit, shorter than the page's: the proxy then gives up first and answers 504 (and says so
 * in its log), rather than the page abandoning the request and leaving the server a closed connection to explain.
 */
export const DEFAULT_PROXY_TIMEOUT_MS = 25_000;
