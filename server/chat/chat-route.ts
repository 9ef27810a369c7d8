import { type Context, Hono } from 'hono';
import { CHAT_COMPLETIONS_PATH } from '../../contract/llm.ts';
import type { ServerEnv } from '../hono-env.ts';
import { DEFAULT_MAX_BODY_BYTES, limitBody, rateLimit } from '../limits/limits.ts';
import { type Answered, actionRounds, offerTools, withTools } from './action-rounds.ts';
import type { ChatOptions, ChatRouteDeps, ChatUpstream } from './chat-options.ts';
import { reservationFor } from './chat-request.ts';
import { accounts, type ChatTurn, call, rebuild, relay, reserve, startExchange } from './chat-steps.ts';
import { find, parse } from './request-steps.ts';

/**
 * `POST /api/llm/v1/chat/completions`: counted, rate limited, capped, size limited, checked, then forwarded with the
 * token added server-side and the model pinned. Only the reply comes back, rebuilt (see `reply-rebuild.ts`): upstream
 * error bodies never reach the client, only a generic error with the upstream status.
 */
export function chatRoute(options: ChatOptions & { upstream: ChatUpstream }, deps: ChatRouteDeps): Hono<ServerEnv> {
  const { metrics } = options;
  const route = new Hono<ServerEnv>();
  route.post(
    CHAT_COMPLETIONS_PATH,
    async (c, next) => {
      await next();
      metrics?.chatRequests.inc({ status: String(c.res.status) });
      if (c.res.status === 429) options.feedback?.count({ kind: 'limited' });
      else if (c.res.status >= 500) options.feedback?.count({ kind: 'error' });
    },
    ...rateLimit(options, deps.counters, deps.log),
    limitBody(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, deps.log),
    (c) => forwardChat(c, options, deps),
  );
  return route;
}

/**
 * One chat request, one way through: parse → reserve → find → call → relay or rebuild (each settling the usage), each
 * step giving data or the response that ends the request; the exchange with the provider ends in one place.
 */
async function forwardChat(
  c: Context<ServerEnv>,
  options: ChatTurn['options'],
  deps: ChatRouteDeps,
): Promise<Response> {
  const turn: ChatTurn = { c, options, deps, started: Date.now() };
  const parsed = await parse(turn);
  if (parsed instanceof Response) return parsed;
  // The page says which message starts a conversation (`first_message`); nothing else of the body is counted.
  options.feedback?.count({
    kind: 'message',
    first: (parsed.body as { first_message?: unknown }).first_message === true,
  });
  const offer = await offerTools(turn, parsed.body);
  const reservation = await reserve(
    turn,
    reservationFor(withTools(parsed.parsed.request, offer)) + (parsed.look?.searchWords?.reserve ?? 0),
  );
  if (reservation instanceof Response) {
    parsed.retrieval?.end();
    return reservation;
  }
  const found = await find(turn, parsed);
  found.request = withTools(found.request, offer);
  const held = { reservation };
  const counts = accounts(turn, found, held);

  const exchange = startExchange(turn);
  let streaming = false;
  try {
    const first = await call(turn, found, exchange, reservation);
    if (first instanceof Response) return first;
    const answered: Answered | Response = offer
      ? await actionRounds(turn, { found, exchange, held, counts, offer }, first)
      : { answer: first, found };
    if (answered instanceof Response) return answered;
    const { answer, actions } = answered;
    if (!found.request.stream) return await rebuild(turn, answer, exchange, answered.found, counts, actions);
    const relayed = await relay(turn, answer, exchange, answered.found, counts, actions);
    streaming = relayed.streaming;
    return relayed.response;
  } finally {
    // A stream's exchange ends with the stream (its `onEnd`); every other way out ends it here.
    if (!streaming) exchange.end();
  }
}
