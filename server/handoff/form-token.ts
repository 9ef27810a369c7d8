import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a form token is taken: a visitor who opened the form an hour ago reloads it. */
export const FORM_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** A form sent sooner than this after its token was issued was filled by a script, not typed by a person. */
export const FORM_TOKEN_MIN_AGE_MS = 3_000;

export type FormTokenProblem = 'missing_token' | 'invalid_token' | 'expired_token' | 'too_soon';

export interface FormTokenTimes {
  lifetimeMs?: number;
  minAgeMs?: number;
}

/**
 * Issues and checks the form's tokens: `base64url(id.issued).base64url(HMAC-SHA256)`, under a key drawn from the
 * site's secret for this use alone (a reply token is never a form token). The signature proves the server gave it and
 * when; that each is used once is the caller's (a counter by its id, shared by replicas).
 */
export function formTokens(
  secret: string,
  { lifetimeMs = FORM_TOKEN_LIFETIME_MS, minAgeMs = FORM_TOKEN_MIN_AGE_MS } = {},
) {
  const key = createHmac('sha256', secret).update('ai-assistant handoff form token').digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest();
  return {
    lifetimeMs,
    issue(now = Date.now()): string {
      const payload = Buffer.from(`${randomBytes(12).toString('base64url')}.${now}`).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    /** The token's id and issue time, or why it is refused. */
    check(token: unknown, now = Date.now()): { id: string; issued: number } | FormTokenProblem {
      if (token === undefined || token === '') return 'missing_token';
      if (typeof token !== 'string' || token.length > 200) return 'invalid_token';
      const [payload, signature, extra] = token.split('.');
      if (!payload || !signature || extra !== undefined) return 'invalid_token';
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid_token';
      const [id, time] = Buffer.from(payload, 'base64url').toString('utf8').split('.');
      const issued = Number(time);
      if (!id || !Number.isSafeInteger(issued)) return 'invalid_token';
      if (now - issued > lifetimeMs) return 'expired_token';
      if (now - issued < minAgeMs) return 'too_soon';
      return { id, issued };
    },
  };
}
export type FormTokens = ReturnType<typeof formTokens>;
