import { createHash, timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { FEEDBACK_PATH, STATS_MAX_DAYS } from '../../contract/feedback.ts';
import { STATS_PATH } from '../../contract/owner.ts';
import { apiError, readJsonBody } from '../api-error.ts';
import type { ServerEnv } from '../hono-env.ts';
import type { Counters } from '../limits/limits.ts';
import { clientKeyOf, type LimitOptions, limitBody, rateLimit } from '../limits/limits.ts';
import type { Feedback } from './feedback.ts';

/** A vote is a token and two words: anything bigger is no vote. */
export const MAX_FEEDBACK_BYTES = 1024;
/** Wrong owner tokens a client may send per minute before it waits. */
const OWNER_FAILURES_PER_MINUTE = 5;

export interface FeedbackRouteDeps {
  feedback: Feedback;
  counters: Counters;
  log: (line: string) => void;
  /** `OWNER_TOKEN`; unset, the stats answer 404 as if they did not exist. */
  ownerToken?: string;
}

/**
 * `POST /api/feedback` (a vote: the chat route's rate limit, 1 KB at most, 400 with a code for a token that is forged,
 * expired or malformed) and `GET /api/stats?days=` (the owner's counts, for `Authorization: Bearer <OWNER_TOKEN>`).
 */
export function feedbackRoutes(options: LimitOptions, deps: FeedbackRouteDeps): Hono<ServerEnv> {
  const { feedback, counters, log, ownerToken } = deps;
  const route = new Hono<ServerEnv>();
  route.use(FEEDBACK_PATH, ...rateLimit(options, counters, log), limitBody(MAX_FEEDBACK_BYTES, log));
  route.post(FEEDBACK_PATH, async (c) => {
    const read = await readJsonBody(c, 'the vote');
    if ('status' in read) return apiError(c, read.status, read.code, read.message);
    const outcome = await feedback.vote(read.body);
    if (outcome.ok) return c.body(null, 204);
    log(`[feedback] POST ${FEEDBACK_PATH} 400 refused: ${outcome.code}`);
    return c.json({ error: { code: outcome.code, message: 'This vote cannot be counted.' } }, 400);
  });

  const keyOf = clientKeyOf(options);
  route.get(STATS_PATH, async (c) => {
    if (!ownerToken) return apiError(c, 404, 'not_found', 'Not found.');
    const failures = `owner-failures:${keyOf(c)}`;
    const resetAt = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    // Each attempt is counted before its comparison, with the limit checked in the same atomic step: a burst cannot
    // all pass the check before any of it is counted. The right token gives its count back.
    if ((await counters.add(failures, 1, resetAt, OWNER_FAILURES_PER_MINUTE)) === undefined) {
      return tooManyFailures(c, resetAt);
    }
    if (!sameToken(c.req.header('authorization') ?? '', `Bearer ${ownerToken}`)) {
      log(`[feedback] GET ${STATS_PATH} 401 refused: owner token`);
      c.header('WWW-Authenticate', 'Bearer');
      return c.json({ error: { code: 'unauthorized', message: 'The owner token is missing or wrong.' } }, 401);
    }
    await counters.add(failures, -1, resetAt);
    const asked = c.req.query('days') ?? '30';
    const days = /^\d{1,2}$/.test(asked) ? Number(asked) : 0;
    if (days < 1 || days > STATS_MAX_DAYS) {
      return apiError(c, 400, 'invalid_body', `days must be a whole number from 1 to ${STATS_MAX_DAYS}.`);
    }
    c.header('Cache-Control', 'no-store');
    return c.json(await feedback.stats(days));
  });
  return route;
}

/** Compares digests, which have one length whatever was sent: the time taken says nothing about the token. */
function sameToken(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function tooManyFailures(c: Context, resetAt: number): Response {
  c.header('Retry-After', String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000))));
  return c.json({ error: { code: 'rate_limited', message: 'Too many wrong owner tokens: try again later.' } }, 429);
}
