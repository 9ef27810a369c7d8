import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a reply can be voted on: after this its token is refused, and the memory of its vote has gone. */
export const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** What a reply token says: signed, so that a page can vote only on a reply the server gave, and only as given. */
export interface ReplyClaims {
  /** A random id: one vote per reply, which a later vote replaces. */
  id: string;
  /** When the reply was given (ms since the epoch): its UTC day is where the vote counts, and the token expires after. */
  issued: number;
  /**
   * A digest of each of the site's pages given with the reply ({@link pageDigest}), by its number less one (`[1]` is
   * the first): a Not helpful counts against the ones the reply cites. Digests, not addresses, so that a token is as
   * small whatever the addresses (a vote's body is 1 KB at most); the server looks them up among its pages.
   */
  pages: string[];
}

/** The most pages a token names: far above what one reply is given. */
export const MAX_TOKEN_PAGES = 32;

/**
 * A page's digest in a token: 72 bits of its address's SHA-256, as 12 base64url characters. A collision between two of
 * a site's pages is as likely as 1 in 2^72 / pages²; the token's signature, not the digest, is what a page cannot forge.
 */
export function pageDigest(address: string): string {
  return createHash('sha256').update(address).digest().subarray(0, 9).toString('base64url');
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
    /** A token for a reply given the pages at `addresses` (numbered in this order), at `now`. */
    issue(addresses: readonly string[], now = Date.now()): string {
      const claims = { i: randomBytes(16).toString('base64url'), t: now, p: addresses.map(pageDigest) };
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
    const { i, t, p } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof i !== 'string' || !Number.isSafeInteger(t) || !Array.isArray(p) || p.length > MAX_TOKEN_PAGES) {
      return undefined;
    }
    if (!p.every((digest) => typeof digest === 'string')) return undefined;
    return { id: i, issued: t as number, pages: p as string[] };
  } catch {
    return undefined;
  }
}
