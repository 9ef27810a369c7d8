// The tool rounds of one visitor message (issue 49), between the first call and the reply: while the model calls an
// action, the server runs it (a read) or turns it into a confirmation (a write), gives the model the result and asks
// again. The limits are the server's, not the prompt's: at most MAX_TOOL_ROUNDS calls, one second chance for invalid
// arguments, and each round reserved under the spend cap before it is made.
import { randomUUID } from 'node:crypto';
import type { ReplyActions } from '../../contract/actions.ts';
import type { ActionOffer } from '../actions/actions.ts';
import { clientKeyOf, type Reservation } from '../limits/limits.ts';
import { isRecord, type RoundRequest, reservationFor, type ToolTurn } from './chat-request.ts';
import { type Accounts, type ChatTurn, call, type Found, reserve } from './chat-steps.ts';
import type { Exchange } from './exchange.ts';
import { readToolCall, type ToolCall } from './tool-call-reader.ts';
import type { UpstreamAnswer } from './upstream.ts';

/** Tool calls one visitor message may lead to; the model is then asked without tools. */
export const MAX_TOOL_ROUNDS = 3;

/** What the page sends for actions beside its messages (never forwarded): the host's visitor token, its conversation. */
function askerOf(turn: ChatTurn, body: unknown) {
  const { identity, conversation } = isRecord(body) ? body : {};
  return {
    identity,
    clientKey: clientKeyOf(turn.options)(turn.c),
    // The conversation a confirmation is bound to: the page's id for it, or one made here and given with the
    // confirmation (the page sends it back with the token).
    conversation:
      typeof conversation === 'string' && /^[A-Za-z0-9_-]{8,100}$/.test(conversation) ? conversation : randomUUID(),
  };
}

/** The actions this request may offer the model, when the site has some and this visitor may use one. */
export async function offerTools(turn: ChatTurn, body: unknown): Promise<ActionOffer | undefined> {
  const offer = await turn.options.actions?.offer(askerOf(turn, body), turn.deps.counters);
  return offer && offer.tools.length > 0 ? offer : undefined;
}

/** The request with the tools offered: strict schemas, one call at a time. */
export function withTools<R extends RoundRequest>(request: R, offer: ActionOffer | undefined): R {
  return offer ? { ...request, tools: offer.tools, parallel_tool_calls: false } : request;
}

function withoutTools(request: RoundRequest): RoundRequest {
  const { tools: _tools, parallel_tool_calls: _parallel, ...rest } = request;
  return rest;
}

/** The call and its result as two messages of the conversation; a call's id that is not a plain word is replaced. */
export function roundOf(
  called: Pick<ToolCall, 'id' | 'name' | 'arguments'>,
  result: string,
  round: number,
): ToolTurn[] {
  const id = /^[\w-]{1,64}$/.test(called.id) ? called.id : `call_${round}`;
  const tool = { id, type: 'function' as const, function: { name: called.name, arguments: called.arguments } };
  return [
    { role: 'assistant', content: null, tool_calls: [tool] },
    { role: 'tool', tool_call_id: id, content: result },
  ];
}

export interface Rounds {
  found: Found;
  exchange: Exchange;
  /** The reservation the next round's usage settles (each round reserves its own). */
  held: { reservation: Reservation | undefined };
  counts: Accounts;
  offer: ActionOffer;
}

/** The reply after the tool rounds, the request that asked for it, and what the page is told of the actions. */
export interface Answered {
  answer: UpstreamAnswer;
  found: Found;
  actions?: ReplyActions;
}

/**
 * Runs the rounds from the provider's first answer to the reply: each call of a tool is run (its result, or an error,
 * to the model as the tool's result), then the model is asked again, under a reservation of its own. After the last
 * round allowed, a second invalid call or a write proposed, it is asked without tools, so that it answers in words.
 */
export async function actionRounds(
  turn: ChatTurn,
  rounds: Rounds,
  first: UpstreamAnswer,
): Promise<Answered | Response> {
  const { exchange, held, counts, offer } = rounds;
  let found = rounds.found;
  let answer = first;
  const notes: ReplyActions['notes'] = [];
  let confirmation: ReplyActions['confirmation'];
  let invalid = 0;
  for (let round = 1; found.request.tools; round++) {
    const read = await readToolCall(answer, found.request.stream === true, () => exchange.stillComing());
    if (read.kind === 'reply') return { answer: read.answer, found, actions: { notes, confirmation } };
    // This round is paid: its usage settled (with the search words' once), and the next round reserved anew.
    if (read.usage) await counts.settle(read.usage);
    const outcome = await offer.run(read.name, read.arguments);
    if (outcome.kind === 'called') notes.push(outcome.note);
    if (outcome.kind === 'proposed') confirmation = outcome.confirmation;
    if (outcome.kind === 'invalid') invalid += 1;
    const result =
      invalid >= 2 && outcome.kind === 'invalid'
        ? JSON.stringify({ error: 'The arguments were invalid again: tell the visitor this could not be done.' })
        : outcome.result;
    const next: RoundRequest = {
      ...found.request,
      messages: [...found.request.messages, ...roundOf(read, result, round)],
    };
    const last = round >= MAX_TOOL_ROUNDS || invalid >= 2 || outcome.kind === 'proposed';
    found = { ...found, request: last ? withoutTools(next) : next, searchUsage: undefined };
    const reservation = await reserve(turn, reservationFor(found.request));
    if (reservation instanceof Response) return reservation;
    held.reservation = reservation;
    exchange.stillComing();
    const again = await call(turn, found, exchange, reservation);
    if (again instanceof Response) return again;
    answer = again;
  }
  return { answer, found, actions: { notes, confirmation } };
}
