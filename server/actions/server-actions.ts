// The actions as the server runs them: built once by the composition root (server/server-parts.ts) from the site's
// `actions:` and the settings, used by the chat route (the tools and their calls) and mounted by the app
// (POST /api/actions/confirm, the chat room's route, checks and performs a confirmation with them).
import { type Counters, clientKeyOf, type LimitOptions } from '../limits/limits.ts';
import type { Action } from './action-types.ts';
import { type ActionEvent, type ActionOffer, type Asker, offerActions } from './chat-actions.ts';
import { type Confirmations, confirmations } from './confirm-action.ts';
import { type ConfirmTokens, confirmTokens } from './confirm-token.ts';
import { type IdentityKeys, visitorIdentity } from './visitor-identity.ts';

export interface ServerActions {
  readonly actions: readonly Action[];
  /** The tools one chat request may offer, and how the model's call of one is run. */
  offer(asker: Asker, counters: Counters): Promise<ActionOffer>;
  /** The visitor's Confirm and Cancel (`POST /api/actions/confirm`): the token checked, the action performed once. */
  confirmations(options: LimitOptions, counters: Counters, log: (line: string) => void): Confirmations;
}

export interface ServerActionsSettings {
  actions: readonly Action[];
  /**
   * The site's secret (`FEEDBACK_SECRET`, or the one the store keeps): the confirmation tokens' key is drawn from it,
   * as the handoff form's is, so that they hold across restarts and replicas with no setting of their own.
   */
  siteSecret: () => Promise<string>;
  /** `ACTIONS_SECRET`: signs the calls to the owner's API only (`X-Assistant-Signature`). */
  callSecret?: string;
  identityKeys: IdentityKeys;
  /** For tests: a shorter time limit on the owner's API. */
  timeoutMs?: number;
  count?: (action: string, event: ActionEvent) => void;
}

export function serverActions(settings: ServerActionsSettings): ServerActions {
  let tokens: Promise<ConfirmTokens> | undefined;
  const tokensOnce = () => {
    tokens ??= settings.siteSecret().then((secret) => confirmTokens(secret));
    return tokens;
  };
  const identity = visitorIdentity(settings.identityKeys);
  const count = settings.count ?? (() => undefined);
  return {
    actions: settings.actions,
    offer: (asker, counters) =>
      offerActions(
        {
          actions: settings.actions,
          tokens: tokensOnce,
          identity,
          counters,
          secret: settings.callSecret,
          timeoutMs: settings.timeoutMs,
          count,
        },
        asker,
      ),
    confirmations: (options, counters, log) =>
      confirmations({
        actions: settings.actions,
        tokens: tokensOnce,
        identity,
        counters,
        call: { secret: settings.callSecret, timeoutMs: settings.timeoutMs },
        clientKey: clientKeyOf(options),
        count: (action, event) => {
          if (action) count(action, event);
        },
        log,
      }),
  };
}
