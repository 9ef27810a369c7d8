import { type Context, Hono } from 'hono';
import { HANDOFF_PATH, type HandoffRefusal, MAX_HANDOFF_BODY_BYTES } from '../../contract/handoff.ts';
import { readJsonBody } from '../api-error.ts';
import type { ServerEnv } from '../hono-env.ts';
import { type Counters, clientKeyOf, type LimitOptions, limitBody } from '../limits/limits.ts';
import type { FormTokens } from './form-token.ts';
import { type HandoffMessage, readHandoffBody } from './handoff-request.ts';

/** Messages one visitor may send per clock hour. */
export const HANDOFF_PER_VISITOR_PER_HOUR = 3;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What the owner's counts hear of the route: a form offered (a token given), a message taken. */
export type RouteCount = 'offered' | 'sent';

export interface HandoffRouteDeps {
  tokens: () => Promise<FormTokens>;
  counters: Counters;
  /** Writes the message to the outbox (and wakes the deliverer); rejects when it cannot be kept. */
  enqueue: (message: HandoffMessage) => Promise<void>;
  dailyLimit: number;
  /** The site's words for a visitor over a limit (`limit_message`) and its `contact` link, sent with the 429. */
  limitMessage?: string;
  contact?: string;
  count: (event: RouteCount) => void;
  log: (line: string) => void;
}

const MESSAGES: Record<HandoffRefusal, string> = {
  unsupported_media_type: 'Send the message as application/json.',
  body_too_large: 'The request body is too large.',
  invalid_body: 'The request is not a message this server takes.',
  invalid_email: 'The email address is not an address.',
  invalid_message: 'The message is empty or too long.',
  conversation_too_long: 'The conversation is too long to send with the message.',
  missing_token: 'The form has no token: reload it.',
  invalid_token: 'The form token is not one this server gave.',
  expired_token: 'The form is too old: reload it.',
  too_soon: 'The form was sent too soon after it was opened.',
  replayed_token: 'This form was already sent.',
  rate_limited: 'Too many messages: try again later.',
};

/**
 * `GET /api/handoff`: a form token (signed, one use, an hour). `POST /api/handoff`: a visitor's message, refused with a
 * code for anything wrong, or written to the outbox and answered 202 before any delivery is tried. The log says the
 * status and the code, never the message, the address or the conversation.
 */
export function handoffRoute(options: LimitOptions, deps: HandoffRouteDeps): Hono<ServerEnv> {
  const { counters, log } = deps;
  const keyOf = clientKeyOf(options);
  const route = new Hono<ServerEnv>();
  const refuse = (c: Context, status: 400 | 413 | 415 | 429, code: HandoffRefusal, extra = {}) => {
    log(`[handoff] POST ${HANDOFF_PATH} ${status} refused: ${code}`);
    return c.json({ error: { code, message: MESSAGES[code], ...extra } }, status);
  };

  route.get(HANDOFF_PATH, async (c) => {
    const token = (await deps.tokens()).issue();
    deps.count('offered');
    return c.json({ token });
  });

  route.use(HANDOFF_PATH, limitBody(MAX_HANDOFF_BODY_BYTES, log));
  route.post(HANDOFF_PATH, async (c) => {
    const read = await readJsonBody(c, 'the message');
    if ('status' in read)
      return refuse(c, read.status, read.code === 'invalid_body' ? 'invalid_body' : 'unsupported_media_type');
    const body = readHandoffBody(read.body);
    if (!body.ok) return refuse(c, 400, body.code);
    const tokens = await deps.tokens();
    const claims = tokens.check(body.token);
    if (typeof claims === 'string') return refuse(c, 400, claims);
    // A form a person never sees was filled: it looks taken, and nothing is sent or kept.
    if (body.honeypot) {
      log(`[handoff] POST ${HANDOFF_PATH} 202 dropped: honeypot`);
      return c.json({ status: 'queued' }, 202);
    }
    const now = Date.now();
    const hourEnd = (Math.floor(now / HOUR_MS) + 1) * HOUR_MS;
    const dayEnd = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    const visitor = `handoff-visitor:${hourEnd}:${keyOf(c)}`;
    const site = `handoff-day:${dayEnd}`;
    const limited = {
      ...(deps.limitMessage ? { limit_message: deps.limitMessage } : {}),
      ...(deps.contact ? { contact: deps.contact } : {}),
    };
    if ((await counters.add(visitor, 1, hourEnd, HANDOFF_PER_VISITOR_PER_HOUR)) === undefined) {
      c.header('Retry-After', String(Math.ceil((hourEnd - now) / 1000)));
      return refuse(c, 429, 'rate_limited', limited);
    }
    if ((await counters.add(site, 1, dayEnd, deps.dailyLimit)) === undefined) {
      await counters.add(visitor, -1, hourEnd);
      c.header('Retry-After', String(Math.ceil((dayEnd - now) / 1000)));
      return refuse(c, 429, 'rate_limited', limited);
    }
    // Used once, by whichever replica sees it first: the count lives as long as the token could.
    if ((await counters.add(`handoff-token:${claims.id}`, 1, claims.issued + tokens.lifetimeMs, 1)) === undefined) {
      await counters.add(visitor, -1, hourEnd);
      await counters.add(site, -1, dayEnd);
      return refuse(c, 400, 'replayed_token');
    }
    try {
      await deps.enqueue(body.message);
    } catch (error) {
      // Not kept, so not "Sent": the visitor keeps the text and may send it again with the same form.
      await Promise.all([
        counters.add(visitor, -1, hourEnd),
        counters.add(site, -1, dayEnd),
        counters.add(`handoff-token:${claims.id}`, -1, claims.issued + tokens.lifetimeMs),
      ]);
      log(`[handoff] POST ${HANDOFF_PATH} 503 the outbox cannot be written (${(error as Error).name})`);
      return c.json(
        { error: { code: 'unavailable', message: 'The message could not be kept: try again later.' } },
        503,
      );
    }
    deps.count('sent');
    log(`[handoff] POST ${HANDOFF_PATH} 202 queued`);
    return c.json({ status: 'queued' }, 202);
  });
  return route;
}
