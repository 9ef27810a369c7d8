// The visitor's confirmation of a write, as a token the server gave with the owner's text: it names the action, the
// inputs as checked, the conversation and an expiry, under a signature only this server can make. Nothing the model
// or the page says can make one; that each is used once is the caller's (a shared counter by its id, as the handoff
// form's tokens are, server/handoff/form-token.ts).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import type { ActionInputs } from './action-types.ts';

/** How long a visitor has to confirm. */
export const CONFIRM_TOKEN_LIFETIME_MS = 5 * 60 * 1000;
/** A longer token is not read: twenty inputs of 200 characters fit. */
const MAX_TOKEN_LENGTH = 16_384;

export type ConfirmRefusal = 'invalid' | 'expired' | 'other_conversation';

/** What a confirmation token names. */
export interface ConfirmClaims {
  /** Its own id: the key of the count that makes it single use. */
  id: string;
  action: string;
  inputs: ActionInputs;
  conversation: string;
  /** When it stops being taken (ms since the epoch). */
  expires: number;
  /** The visitor's `sub` from the host page's token, for an action that needs identity: confirmed by the same one. */
  sub?: string;
}

const claimsSchema = v.strictObject({
  id: v.string(),
  action: v.string(),
  inputs: v.record(v.string(), v.union([v.string(), v.number(), v.boolean()])),
  conversation: v.string(),
  expires: v.pipe(v.number(), v.safeInteger()),
  sub: v.optional(v.string()),
});

/**
 * Issues and checks confirmation tokens: `base64url(JSON claims).base64url(HMAC-SHA256)` under a key drawn from
 * `secret` for this use alone (a form or reply token is never one of these).
 */
export function confirmTokens(secret: string, { lifetimeMs = CONFIRM_TOKEN_LIFETIME_MS } = {}) {
  const key = createHmac('sha256', secret).update('ai-assistant action confirmation token').digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest();
  return {
    lifetimeMs,
    issue(claims: Omit<ConfirmClaims, 'id' | 'expires'>, now = Date.now()): string {
      const full: ConfirmClaims = { id: randomBytes(12).toString('base64url'), ...claims, expires: now + lifetimeMs };
      const payload = Buffer.from(JSON.stringify(full)).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    /** What the token names, when this server signed it, it has not expired, and it is for `conversation`. */
    check(token: unknown, conversation: unknown, now = Date.now()): ConfirmClaims | ConfirmRefusal {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return 'invalid';
      const [payload, signature, extra] = token.split('.');
      if (!payload || !signature || extra !== undefined) return 'invalid';
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      let data: unknown;
      try {
        data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return 'invalid';
      }
      const claims = v.safeParse(claimsSchema, data);
      if (!claims.success) return 'invalid';
      if (now > claims.output.expires) return 'expired';
      if (claims.output.conversation !== conversation) return 'other_conversation';
      return claims.output;
    },
  };
}
export type ConfirmTokens = ReturnType<typeof confirmTokens>;
