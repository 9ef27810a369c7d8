import { type Context, Hono } from 'hono';
import { ACTIONS_CONFIRM_PATH, type ConfirmRefusalCode, MAX_CONFIRM_BODY_BYTES } from '../../contract/actions.ts';
import { readJsonBody } from '../api-error.ts';
import type { ServerEnv } from '../hono-env.ts';
import { type Counters, clientKeyOf, type LimitOptions, limitBody } from '../limits/limits.ts';
import { takeDailyCall } from './action-limits.ts';
import type { Action } from './action-types.ts';
import { type CallOptions, callAction } from './call-action.ts';
import type { ConfirmClaims, ConfirmTokens } from './confirm-token.ts';
import type { CheckIdentity } from './visitor-identity.ts';

/** What the owner's counts hear of a confirmation: a call made and answered, one that failed, one refused. */
export type ConfirmCount = 'confirmed' | 'failed' | 'refused';

export interface ConfirmRouteDeps {
  actions: readonly Action[];
  /** The confirmation tokens, under a key drawn from the site's secret (read once, when first needed). */
  tokens: () => Promise<ConfirmTokens>;
  identity: CheckIdentity;
  counters: Counters;
  /** `ACTIONS_SECRET` and, for tests, a shorter time limit. */
  call: Pick<CallOptions, 'secret' | 'timeoutMs'>;
  /** Per action, never with its inputs or result (`action` is undefined when the token named none of the site's). */
  count: (action: string | undefined, event: ConfirmCount) => void;
  log: (line: string) => void;
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

/** The body: `token` and `conversation` (strings), and the host page's visitor token when there is one. */
function readConfirmBody(body: unknown): { token: string; conversation: string; identity?: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { token, conversation, identity } = body as Record<string, unknown>;
  if (typeof token !== 'string' || typeof conversation !== 'string') return undefined;
  if (identity !== undefined && typeof identity !== 'string') return undefined;
  return { token, conversation, ...(identity === undefined ? {} : { identity }) };
}

type Refuse = (code: ConfirmRefusalCode, status: 400 | 403 | 429, action?: string) => Response;

/** The visitor who confirms: the host page's `sub` for an action that needs identity (the one the token names). */
async function visitorOf(
  deps: ConfirmRouteDeps,
  claims: ConfirmClaims,
  action: Action,
  identity: string | undefined,
): Promise<string | undefined> {
  if (action.identity !== 'required') return undefined;
  const visitor = await deps.identity(identity);
  return visitor && visitor.sub === claims.sub ? visitor.sub : undefined;
}

/**
 * `POST /api/actions/confirm`: the visitor's Confirm. The token is checked (signature, expiry, conversation), used
 * once (a count by its id in the shared counters, as the handoff form's), the action's daily allowance taken, and
 * the action called with the inputs the token names; the answer is its JSON result, or why there is none. Every
 * refusal is counted and logged by its code, never with inputs or results.
 */
export function confirmRoute(options: LimitOptions, deps: ConfirmRouteDeps): Hono<ServerEnv> {
  const keyOf = clientKeyOf(options);
  const route = new Hono<ServerEnv>();
  route.use(ACTIONS_CONFIRM_PATH, limitBody(MAX_CONFIRM_BODY_BYTES, deps.log));
  route.post(ACTIONS_CONFIRM_PATH, async (c: Context<ServerEnv>) => {
    const refuse: Refuse = (code, status, action) => {
      deps.count(action, 'refused');
      deps.log(`[actions] POST ${ACTIONS_CONFIRM_PATH} ${status} refused: ${code}${action ? ` (${action})` : ''}`);
      return c.json({ error: { code, message: MESSAGES[code] } }, status);
    };
    const read = await readJsonBody(c, 'the confirmation');
    if ('status' in read) {
      deps.count(undefined, 'refused');
      return c.json({ error: { code: read.code, message: read.message } }, read.status);
    }
    const body = readConfirmBody(read.body);
    if (!body) return refuse('invalid_body', 400);
    const claims = (await deps.tokens()).check(body.token, body.conversation);
    if (claims === 'invalid') return refuse('invalid_token', 400);
    if (claims === 'expired') return refuse('expired_token', 400);
    if (claims === 'other_conversation') return refuse('other_conversation', 400);
    // An action the site no longer declares is not called, whatever an older token says.
    const action = deps.actions.find((candidate) => candidate.name === claims.action);
    if (!action?.confirm) return refuse('invalid_token', 400);
    const sub = await visitorOf(deps, claims, action, body.identity);
    if (action.identity === 'required' && !sub) return refuse('identity_required', 403, action.name);
    const daily = await takeDailyCall(deps.counters, action, sub ?? keyOf(c));
    if (!daily.ok) {
      c.header('Retry-After', String(daily.retryAfterS));
      return refuse('rate_limited', 429, action.name);
    }
    // Used once, by whichever replica sees it first: the count lives as long as the token could.
    if ((await deps.counters.add(`action-token:${claims.id}`, 1, claims.expires + 1, 1)) === undefined) {
      await daily.giveBack();
      return refuse('replayed_token', 400, action.name);
    }
    const result = await callAction(action, claims.inputs, { ...deps.call, visitorToken: body.identity });
    if (!result.ok) {
      deps.count(action.name, 'failed');
      deps.log(`[actions] POST ${ACTIONS_CONFIRM_PATH} 502 ${action.name} failed: ${result.reason}`);
      return c.json({ error: { code: 'action_failed', message: MESSAGES.action_failed, reason: result.reason } }, 502);
    }
    deps.count(action.name, 'confirmed');
    deps.log(`[actions] POST ${ACTIONS_CONFIRM_PATH} 200 ${action.name} confirmed`);
    return c.json({ action: action.name, result: result.result });
  });
  return route;
}
