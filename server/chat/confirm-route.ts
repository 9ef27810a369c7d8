// `POST /api/actions/confirm` (issue 49): the visitor's Confirm of a write, answered as a chat reply about what was
// done, or their Cancel. The token's check and the action's call are the actions room's (confirm-action.ts); the
// reply's steps are the chat request's (chat-steps.ts).
import { Hono } from 'hono';
import { ACTIONS_CONFIRM_PATH, ACTIONS_OBJECT, MAX_CONFIRM_BODY_BYTES } from '../../contract/actions.ts';
import type { Confirmations, Performed, ServerActions } from '../actions/actions.ts';
import { readJsonBody } from '../api-error.ts';
import type { ServerEnv } from '../hono-env.ts';
import { DEFAULT_MAX_BODY_BYTES, limitBody, type Reservation, rateLimit } from '../limits/limits.ts';
import { roundOf } from './action-rounds.ts';
import type { ChatOptions, ChatRouteDeps, ChatUpstream } from './chat-options.ts';
import { isRecord, type RoundRequest, reservationFor } from './chat-request.ts';
import {
  accounts,
  type ChatTurn,
  call,
  done,
  type Found,
  rebuild,
  relay,
  reserve,
  startExchange,
} from './chat-steps.ts';
import { rebuildCompletion } from './reply-rebuild.ts';
import { parse } from './request-steps.ts';
import { sseEvent } from './sse-relay.ts';
import type { UpstreamAnswer } from './upstream.ts';

type ConfirmOptions = ChatOptions & { upstream: ChatUpstream; actions: ServerActions };

/**
 * Confirm: the page's chat request (the conversation that led to the proposal) with `confirmation`, `conversation`
 * and `identity?`, answered as the chat route answers (a stream or a whole completion, the action's note first).
 * Cancel: `{ cancel: true, confirmation, conversation }`, answered `{ cancelled: true }`. Rate limited as the chat.
 */
export function confirmRoute(options: ConfirmOptions, deps: ChatRouteDeps): Hono<ServerEnv> {
  const taken = options.actions.confirmations(options, deps.counters, deps.log);
  const route = new Hono<ServerEnv>();
  route.use(ACTIONS_CONFIRM_PATH, ...rateLimit(options, deps.counters, deps.log));
  // A chat request's body, and the confirmation's token and visitor token beside it.
  route.use(
    ACTIONS_CONFIRM_PATH,
    limitBody((options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) + MAX_CONFIRM_BODY_BYTES, deps.log),
  );
  route.post(ACTIONS_CONFIRM_PATH, (c) => confirmReply({ c, options, deps, started: Date.now() }, taken));
  return route;
}

/** The request with the action's call and its result as a tool round: the model tells the visitor what was done. */
function toldRequest(request: RoundRequest, name: string, inputs: unknown, result: string): RoundRequest {
  const round = roundOf({ id: 'call_confirmed', name, arguments: JSON.stringify(inputs) }, result, 1);
  return { ...request, messages: [...request.messages, ...round] };
}

/**
 * Checked first (the body, then the token), then the action performed once, and only then the model asked, without
 * tools or the site's pages, under a reservation for the request with the result as it came. The visitor confirmed
 * and the call costs no tokens, so a spend cap that refuses that reservation does not undo it: the `show` template
 * tells the result instead of the model.
 */
async function confirmReply(turn: ChatTurn, taken: Confirmations): Promise<Response> {
  const raw = await readJsonBody(turn.c, 'the confirmation');
  if (!('status' in raw) && isRecord(raw.body) && raw.body.cancel === true) return taken.cancel(turn.c, raw.body);
  const parsed = await parse(turn, false);
  if (parsed instanceof Response) return parsed;
  const checked = await taken.check(turn.c, parsed.body);
  if (checked instanceof Response) return checked;
  const performed = await checked.perform();
  if (performed instanceof Response) return performed;
  const { request } = parsed.parsed;
  const told = toldRequest(request, checked.action.name, checked.inputs, JSON.stringify({ result: performed.result }));
  const found: Found = { ...parsed.parsed, request: told, searchReason: undefined };
  const reservation = await reserve(turn, reservationFor(told));
  if (reservation instanceof Response) return shown(turn, found, performed);
  return tellResult(turn, found, reservation, performed);
}

/** The model's reply about the action done, relayed or rebuilt as a chat reply; the `show` template when it fails. */
async function tellResult(
  turn: ChatTurn,
  found: Found,
  reservation: Reservation | undefined,
  performed: Performed,
): Promise<Response> {
  // Not an answer to a question of the site's pages: the owner's coverage counts (with or without sources) skip it.
  const counts = { ...accounts(turn, found, { reservation }), answer: () => undefined };
  const actions = { notes: [performed.note] };
  const exchange = startExchange(turn);
  let streaming = false;
  try {
    const answer = await call(turn, found, exchange, reservation);
    if (answer instanceof Response) return shown(turn, found, performed);
    if (!found.request.stream) {
      const rebuilt = await rebuild(turn, answer, exchange, found, counts, actions);
      return rebuilt.status === 200 ? rebuilt : shown(turn, found, performed);
    }
    const started = await firstPiece(answer, () => exchange.stillComing());
    if (!started) return shown(turn, found, performed);
    const relayed = await relay(turn, started, exchange, found, counts, actions);
    streaming = relayed.streaming;
    return streaming ? relayed.response : shown(turn, found, performed);
  } finally {
    // A stream's exchange ends with the stream (its `onEnd`); every other way out ends it here.
    if (!streaming) exchange.end();
  }
}

/**
 * The stream's first piece read before the reply starts, so that a provider that stops before it (the deadline, a
 * broken connection) still gets the `show` template; the answer given on, that piece first.
 */
async function firstPiece(answer: UpstreamAnswer, came: () => void): Promise<UpstreamAnswer | undefined> {
  const chunks = answer.chunks();
  let first: IteratorResult<Uint8Array> | undefined;
  try {
    first = await chunks.next();
  } catch {
    return undefined;
  }
  if (first.done) return undefined;
  came();
  const given = first;
  let read = false;
  const rest: AsyncIterator<Uint8Array> = {
    next: () => {
      if (read) return chunks.next();
      read = true;
      return Promise.resolve(given);
    },
    return: (value) => chunks.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
  };
  return { ...answer, chunks: () => rest };
}

/**
 * The reply when the model cannot give one: the action's `show`, filled with the result's fields and the inputs, or a
 * plain sentence with its name, in the format asked for (a stream of chat chunks, or a whole completion).
 */
function shown(turn: ChatTurn, found: Found, { note, told: text }: Performed): Response {
  turn.deps.log(
    `[actions] POST ${ACTIONS_CONFIRM_PATH} ${note.action}: the model gave no reply, its show is the reply`,
  );
  const actions = { notes: [note] };
  if (!found.request.stream) {
    const completion = { choices: [{ index: 0, message: { content: text }, finish_reason: 'stop' }] };
    return done(turn, turn.c.json(rebuildCompletion(completion, [], undefined, actions), 200), 'shown');
  }
  const chunk = (delta: object, reason: string | null) => ({
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: reason }],
  });
  const events = [
    { object: ACTIONS_OBJECT, ...actions },
    chunk({ role: 'assistant', content: text }, null),
    chunk({}, 'stop'),
  ];
  const body = `${events.map(sseEvent).join('')}data: [DONE]\n\n`;
  return done(turn, new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }), 'shown');
}
