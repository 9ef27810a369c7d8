import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

type ErrorCode =
  | 'not_found'
  | 'forbidden_origin'
  | 'unsupported_media_type'
  | 'invalid_body'
  | 'body_too_large'
  | 'rate_limited'
  | 'daily_token_limit'
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
