import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { apiError, refusalLine } from '../api-error.ts';

/** 256 KiB: far above any chat message a person types, far below what could tie up the server. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/** Refuses a body over `maxSize` bytes with a JSON 413 (and a log line), whether its length is declared or it streams. */
export function limitBody(maxSize: number, log: (line: string) => void): MiddlewareHandler {
  const tooLarge = (c: Context) => {
    log(refusalLine(c, 413, 'body_too_large'));
    return apiError(c, 413, 'body_too_large', 'The request body is too large.');
  };
  const countedLimit = bodyLimit({ maxSize, onError: tooLarge });
  return (c, next) => {
    // A declared size is checked as declared (Node's parser reads no further than it). Only a body of unknown
    // length goes through Hono's bodyLimit, which counts it as it streams: it builds a web Request and a stream
    // for every request, which is a noticeable share of the proxy's CPU per request under load.
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return countedLimit(c, next);
    return Number(declared) > maxSize ? Promise.resolve(tooLarge(c)) : next();
  };
}
