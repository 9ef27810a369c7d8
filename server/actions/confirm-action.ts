// The visitor's Confirm and Cancel of a write (issue 49), as the actions room checks and performs them; the route that
// answers them with a reply in words is the chat room's (server/chat/confirm-route.ts).
import type { Context } from 'hono';
import {
  ACTIONS_CONFIRM_PATH,
  type ActionNote,
  type CancelAnswer,
  type ConfirmFields,
  type ConfirmRefusalCode,
} from '../../contract/actions.ts';
import type { ServerEnv } from '../hono-env.ts';
import type { Counters } from '../limits/limits.ts';
import { takeDailyCall } from './action-limits.ts';
import type { Action, ActionInputs } from './action-types.ts';
import { type CallOptions, callAction } from './call-action.ts';
import { noteOf } from './chat-actions.ts';
import type { ConfirmClaims, ConfirmTokens } from './confirm-token.ts';
import type { CheckIdentity } from './visitor-identity.ts';

/** What the owner's counts hear of a confirmation: a call made and answered, one that failed, a Cancel, a refusal. */
export type ConfirmCount = 'confirmed' | 'failed' | 'cancelled' | 'refused';

export interface ConfirmDeps {
  actions: readonly Action[];
  /** The confirmation tokens, under a key drawn from the site's secret (read once, when first needed). */
  tokens: () => Promise<ConfirmTokens>;
  identity: CheckIdentity;
  counters: Counters;
  /** `ACTIONS_SECRET` and, for tests, a shorter time limit. */
  call: Pick<CallOptions, 'secret' | 'timeoutMs'>;
  /** Whose daily allowance an action without identity takes: the client's key (its address). */
  clientKey: (c: Context<ServerEnv>) => string;
  /** Per action, never with its inputs or result (`action` is undefined when the token named none of the site's). */
  count: (action: string | undefined, event: ConfirmCount) => void;
  log: (line: string) => void;
}

/** An action done on the visitor's Confirm: its JSON result (data for the model) and the note the page shows. */
export interface Performed {
  result: unknown;
  note: ActionNote;
  /** The reply when the model gives none: the action's `show`, filled, or a plain sentence with its name. */
  told: string;
}

/** A confirmation whose token was checked and is not used yet: the action it names, with the inputs it names. */
export interface CheckedConfirmation {
  action: Action;
  inputs: ActionInputs;
  /** Takes the day's allowance, uses the token up and calls the action, once: what it did, or the refusal. */
  perform(): Promise<Performed | Response>;
}

/** The confirm path's part in the actions room. */
export interface Confirmations {
  /** A Confirm's token checked (signature, expiry, conversation, the action, the visitor): nothing is called yet. */
  check(c: Context<ServerEnv>, body: unknown): Promise<CheckedConfirmation | Response>;
  /** A Cancel: the token checked the same way and used up, nothing called; answers `{ cancelled: true }`. */
  cancel(c: Context<ServerEnv>, body: unknown): Promise<Response>;
}

const MESSAGES: Record<ConfirmRefusalCode, string> = {
  unsupported_media_type: 'Send the confirmation as application/json.',
  body_too_large: 'The request body is too large.',
  invalid_body: 'The request is not a confirmation this server takes.',
  invalid_token: 'The confirmation is not one this server gave.',
  expired_token: 'The confirmation is too old: ask again.',
  other_conversation: 'The confirmation belongs to another conversation.',
  replayed_token: 'This confirmation was already used.',
  identity_required: "The site's sign-in is needed, and must be the one that asked.",
  rate_limited: 'This action was used too often today: try again tomorrow.',
  action_failed: 'The action could not be done.',
};

/** The body's `confirmation` and `conversation` (strings), and the host page's visitor token when there is one. */
function readConfirmBody(body: unknown): ConfirmFields | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { confirmation, conversation, identity } = body as Record<string, unknown>;
  if (typeof confirmation !== 'string' || typeof conversation !== 'string') return undefined;
  if (identity !== undefined && typeof identity !== 'string') return undefined;
  return { confirmation, conversation, ...(identity === undefined ? {} : { identity }) };
}

/** A token checked: the action it names, its claims, the visitor's `sub` (identity) and the host page's token. */
interface Checked {
  action: Action;
  claims: ConfirmClaims;
  sub: string | undefined;
  identity: string | undefined;
}

type Refuse = (code: ConfirmRefusalCode, status: 400 | 403 | 429, action?: string) => Response;

/**
 * The visitor's Confirm and Cancel of a write the server proposed. The token is checked (signature, expiry,
 * conversation, an action the site still declares, the same visitor for an action with identity) and used once (a
 * count by its id in the shared counters, as the handoff form's), by a Confirm that calls the action or a Cancel that
 * calls nothing. Every refusal is counted and logged by its code, never with inputs or results.
 */
export function confirmations(deps: ConfirmDeps): Confirmations {
  const refuser =
    (c: Context<ServerEnv>): Refuse =>
    (code, status, action) => {
      deps.count(action, 'refused');
      deps.log(`[actions] POST ${ACTIONS_CONFIRM_PATH} ${status} refused: ${code}${action ? ` (${action})` : ''}`);
      return c.json({ error: { code, message: MESSAGES[code] } }, status);
    };
  // Used once, by whichever replica sees it first: the count lives as long as the token could.
  const spendToken = async (claims: ConfirmClaims) =>
    (await deps.counters.add(`action-token:${claims.id}`, 1, claims.expires + 1, 1)) !== undefined;

  const checkToken = async (body: unknown, refuse: Refuse): Promise<Checked | Response> => {
    const read = readConfirmBody(body);
    if (!read) return refuse('invalid_body', 400);
    const claims = (await deps.tokens()).check(read.confirmation, read.conversation);
    if (claims === 'invalid') return refuse('invalid_token', 400);
    if (claims === 'expired') return refuse('expired_token', 400);
    if (claims === 'other_conversation') return refuse('other_conversation', 400);
    // An action the site no longer declares is not called, whatever an older token says.
    const action = deps.actions.find((candidate) => candidate.name === claims.action);
    if (!action?.confirm) return refuse('invalid_token', 400);
    if (action.identity !== 'required') return { action, claims, sub: undefined, identity: read.identity };
    const visitor = await deps.identity(read.identity);
    if (!visitor || visitor.sub !== claims.sub) return refuse('identity_required', 403, action.name);
    return { action, claims, sub: visitor.sub, identity: read.identity };
  };

  const perform = async (c: Context<ServerEnv>, checked: Checked, refuse: Refuse): Promise<Performed | Response> => {
    const { action, claims, sub, identity } = checked;
    const daily = await takeDailyCall(deps.counters, action, sub ?? deps.clientKey(c));
    if (!daily.ok) {
      c.header('Retry-After', String(daily.retryAfterS));
      return refuse('rate_limited', 429, action.name);
    }
    if (!(await spendToken(claims))) {
      await daily.giveBack();
      return refuse('replayed_token', 400, action.name);
    }
    const called = await callAction(action, claims.inputs, { ...deps.call, visitorToken: identity });
    if (!called.ok) {
      deps.count(action.name, 'failed');
      deps.log(`[actions] POST ${ACTIONS_CONFIRM_PATH} 502 ${action.name} failed: ${called.reason}`);
      return c.json({ error: { code: 'action_failed', message: MESSAGES.action_failed, reason: called.reason } }, 502);
    }
    deps.count(action.name, 'confirmed');
    deps.log(`[actions] POST ${ACTIONS_CONFIRM_PATH} ${action.name} confirmed`);
    const note = noteOf(action, claims.inputs, called.result);
    return { result: called.result, note, told: action.show ? note.text : `The action ${action.name} was done.` };
  };

  return {
    async check(c, body) {
      const refuse = refuser(c);
      const checked = await checkToken(body, refuse);
      if (checked instanceof Response) return checked;
      return { action: checked.action, inputs: checked.claims.inputs, perform: () => perform(c, checked, refuse) };
    },
    async cancel(c, body) {
      const refuse = refuser(c);
      const checked = await checkToken(body, refuse);
      if (checked instanceof Response) return checked;
      if (!(await spendToken(checked.claims))) return refuse('replayed_token', 400, checked.action.name);
      deps.count(checked.action.name, 'cancelled');
      deps.log(`[actions] POST ${ACTIONS_CONFIRM_PATH} 200 ${checked.action.name} cancelled`);
      return c.json({ cancelled: true } satisfies CancelAnswer);
    },
  };
}
