// The visitor's identity comes from the host site, never from the conversation: its backend signs a JWT (HS256 with
// IDENTITY_SECRET, or RS256 / ES256 with the key whose public half is IDENTITY_PUBLIC_KEY), the page hands it over,
// and the server checks it here with jose before an action that needs identity is offered or called.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { MAX_IDENTITY_LENGTH } from '../../contract/actions.ts';

/** How far the site's clock and this server's may differ when `exp` (and `nbf`, `iat`) are checked. */
export const IDENTITY_CLOCK_TOLERANCE_S = 30;

export interface IdentityKeys {
  /** `IDENTITY_SECRET` (HS256). */
  secret?: string;
  /** `IDENTITY_PUBLIC_KEY`, PEM (RS256 for an RSA key, ES256 for a P-256 one). */
  publicKey?: string;
}

/** Who the host site says the visitor is: its own id for them (`sub`). */
export interface VisitorIdentity {
  sub: string;
}

export type CheckIdentity = (token: unknown, now?: Date) => Promise<VisitorIdentity | undefined>;

/** The algorithm each key checks, and the key: only these are taken, whatever a token's header says. */
function keysFrom({ secret, publicKey }: IdentityKeys): Map<string, Uint8Array | KeyObject> {
  const keys = new Map<string, Uint8Array | KeyObject>();
  if (secret) keys.set('HS256', new TextEncoder().encode(secret));
  if (publicKey) {
    const key = createPublicKey(publicKey);
    keys.set(key.asymmetricKeyType === 'rsa' ? 'RS256' : 'ES256', key);
  }
  return keys;
}

/**
 * The check of visitor tokens under the site's keys (read and checked at start-up, server/settings/env-actions.ts):
 * a signature by one of them with its algorithm (never `none`), `sub` and `exp` present, not expired. It gives the
 * visitor's `sub`, or undefined for anything else; it never throws. With no key, every token is refused.
 */
export function visitorIdentity(keys: IdentityKeys): CheckIdentity {
  const byAlgorithm = keysFrom(keys);
  const algorithms = [...byAlgorithm.keys()];
  return async (token, now) => {
    if (typeof token !== 'string' || token.length > MAX_IDENTITY_LENGTH || algorithms.length === 0) return undefined;
    try {
      // jose is loaded with the first token to check (0.08 s of CPU), not by every server and command.
      const { jwtVerify } = await import('jose');
      const { payload } = await jwtVerify(token, (header) => byAlgorithm.get(header.alg) ?? new Uint8Array(), {
        algorithms,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: IDENTITY_CLOCK_TOLERANCE_S,
        ...(now ? { currentDate: now } : {}),
      });
      return typeof payload.sub === 'string' && payload.sub !== '' ? { sub: payload.sub } : undefined;
    } catch {
      return undefined;
    }
  };
}
