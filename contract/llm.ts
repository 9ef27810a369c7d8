// Plain constants (and one check) shared by the app (src/) and the server (server/). No imports: both sides may use it.

/** The same-origin path under which the server offers the OpenAI-compatible proxy. */
export const PROXY_BASE_PATH = '/api/llm/v1';
/** The chat path under it: the only one the proxy forwards, and the one the app's openai client calls. */
export const CHAT_COMPLETIONS_PATH = `${PROXY_BASE_PATH}/chat/completions`;

/** The spec's business constants for every chat request. */
export const MAX_TOKENS = 250;
export const TEMPERATURE = 0.7;

/** Defaults: a hosted OpenAI-compatible provider and an instruct-tuned 7B open model it serves. */
export const DEFAULT_BASE_URL = 'https://router.huggingface.co/v1';
export const DEFAULT_MODEL = 'Qwen/Qwen2.5-7B-Instruct';
/**
 * The page's time limit for a reply: from the submit to the first piece (or to the whole reply, when it is not
 * streamed), and then between two pieces of a streamed reply.
 */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** How long the page waits for a first piece before telling the visitor that the model is still working. */
export const DEFAULT_SLOW_MS = 8_000;

/**
 * The `error.code` of the proxy's 429s (server/api-error.ts), by the limit that refused the request: the per-client
 * rate, or the site's daily allowance. The page tells the visitor which by these, never by the message's words;
 * src/llm/limit-refusal.test.ts checks them against the real proxy's answers.
 */
export const LIMIT_ERROR_CODES = { rate: 'rate_limited', daily: 'daily_token_limit' } as const;
/**
 * The proxy's own upstream limit, shorter than the page's: the proxy then gives up first and answers 504 (and says so
 * in its log), rather than the page abandoning the request and leaving the server a closed connection to explain.
 */
export const DEFAULT_PROXY_TIMEOUT_MS = 25_000;

/**
 * A file the client build writes next to `index.html`, saying how the page reaches its model, so that the production
 * server can serve a direct-mode build without a token of its own. It holds no secret: only the provider's origin,
 * which the page's own code contains anyway.
 */
export const BUILD_INFO_FILE = 'llm-build.json';

/** What {@link BUILD_INFO_FILE} holds. */
export type BuildInfo = { mode: 'proxy' } | { mode: 'direct'; providerOrigin: string };

/**
 * A page of the site given to the model with a reply (proxy mode, `knowledge` configured): `[n]` in the reply cites it.
 * The title is text, never markup; the address is `http:` or `https:`.
 */
export interface ReplySource {
  n: number;
  title: string;
  /** The section the reply was given (`…/returns#refunds`). */
  url: string;
  /** The page itself, without the section: what the Sources list and the votes count once. */
  page?: string;
}

/**
 * The host page the visitor is reading, as the embed loader names it (never its query or fragment): `page_context` in
 * a chat request's body, with the site's `page_context`.
 */
export interface PageContext {
  origin: string;
  path: string;
  title: string;
}

/**
 * What the embed's host page has told the app so far, filled in by src/embed/host-page.ts as the loader says it: the
 * page the visitor reads (with the site's `page_context`), and the visitor's token from the host site
 * (`AIAssistant.identify(token)` on the loader, the React component's `identity`: a JWT the site's backend signs, which
 * each request carries as `identity` for the server to check, docs/actions.md). The chat machine is started with this
 * one object (its input's `hostPage`) and each request reads it as it is then.
 */
export interface HostPageContext {
  current?: PageContext;
  identity?: string;
}

/**
 * What the proxy says of a reply besides its sources: `reply`, the token a vote on it names (contract/feedback.ts), and
 * `uncovered` when the site has pages and none covered the question.
 */
export interface ReplyTokenFields {
  reply: string;
  uncovered?: true;
}
