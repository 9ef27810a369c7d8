import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { LIMIT_ERROR_CODES } from '../contract/llm.ts';

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

/** A body refused for what it is: its status, code and message. */
export interface BodyRefusal {
  status: 400 | 415;
  code: RefusalCode;
  message: string;
}

/** The JSON body of a POST, or why it is refused (`what` names the body in the 415: "the request", "the vote"). */
export async function readJsonBody(c: Context, what: string): Promise<{ body: unknown } | BodyRefusal> {
  if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
    return { status: 415, code: 'unsupported_media_type', message: `Send ${what} as application/json.` };
  }
  try {
    return { body: await c.req.json() };
  } catch {
    return { status: 400, code: 'invalid_body', message: 'The body is not valid JSON.' };
  }
}
