import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a reply can be voted on: after this its token is refused, and the memory of its vote has gone. */
export const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** What a reply token says: signed, so that a page can vote only on a reply the server gave, and only as given. */
export interface ReplyClaims {
  /** A random id: one vote per reply, which a later vote replaces. */
  id: string;
  /** When the reply was given (ms since the epoch): its UTC day is where the vote counts, and the token expires after. */
  issued: number;
  /** The addresses of the site's pages given with the reply: where a Not helpful counts against them. */
  sources: string[];
}

/** Why a token was refused: the `code` of the 400. */
export type TokenProblem = 'malformed_token' | 'forged_token' | 'expired_token';

/** The UTC day of `time` as YYYY-MM-DD. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * Issues and checks reply tokens: `base64url(JSON claims).base64url(HMAC-SHA256)` under `secret`, the same for every
 * replica (`FEEDBACK_SECRET`, or the one kept in the store), so that any replica takes a vote on any replica's reply.
 */
export function replyTokens(secret: string) {
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest();
  return {
    issue(sources: readonly string[], now = Date.now()): string {
      const claims = { i: randomBytes(16).toString('base64url'), t: now, s: sources };
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    check(token: unknown, now = Date.now()): ReplyClaims | TokenProblem {
      if (typeof token !== 'string' || token.length > 4096) return 'malformed_token';
      const [payload, signature, extra] = token.split('.');
      if (!payload || !signature || extra !== undefined) return 'malformed_token';
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged_token';
      const claims = readClaims(payload);
      if (!claims) return 'malformed_token';
      if (now - claims.issued > TOKEN_LIFETIME_MS || claims.issued - now > 60_000) return 'expired_token';
      return claims;
    },
  };
}
export type ReplyTokens = ReturnType<typeof replyTokens>;

function readClaims(payload: string): ReplyClaims | undefined {
  try {
    const { i, t, s } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof i !== 'string' || !Number.isSafeInteger(t) || !Array.isArray(s)) return undefined;
    if (!s.every((address) => typeof address === 'string')) return undefined;
    return { id: i, issued: t as number, sources: s as string[] };
  } catch {
    return undefined;
  }
}
