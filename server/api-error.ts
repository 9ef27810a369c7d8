import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { LIMIT_ERROR_CODES } from '../contract/llm.ts';

/** The codes of a request refused for what it is or how often it comes (not a failure of the server or provider). */
export type RefusalCode =
  | 'forbidden_origin'
  | 'unsupported_media_type'
  | 'invalid_body'
  | 'body_too_large'
  | (typeof LIMIT_ERROR_CODES)[keyof typeof LIMIT_ERROR_CODES];

type ErrorCode =
  | RefusalCode
  | 'not_found'
  | 'upstream_error'
  | 'upstream_invalid'
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'internal_error';

/** An OpenAI-style error body, which the app's openai client reads like a provider's. */
export function apiError(c: Context, status: ContentfulStatusCode, code: ErrorCode, message: string): Response {
  const type = status === 429 ? 'rate_limit_error' : status < 500 ? 'invalid_request_error' : 'api_error';
  return c.json({ error: { message, type, code } }, status);
}

/**
 * The log line of a refused request: its method, path, status and reason code, in the form of the chat route's
 * lines. Never its body, query or headers: they are the visitor's.
 */
export function refusalLine(c: Context, status: number, code: RefusalCode, detail = ''): string {
  return `[llm-proxy] ${c.req.method} ${c.req.path} ${status} refused: ${code}${detail}`;
}

/** The cap's 429: the client's openai library reads it like a provider's rate limit, and waits for `Retry-After`. */
export function capRefusal(c: Context, retryAfter: number): Response {
  const refusal = apiError(
    c,
    429,
    LIMIT_ERROR_CODES.daily,
    'The daily usage limit is reached, please come back later.',
  );
  refusal.headers.set('Retry-After', String(retryAfter));
  return refusal;
}
