import { createPublicKey } from 'node:crypto';
import { type Env, readSecret } from './env-values.ts';

/** The shortest `IDENTITY_SECRET`: HS256 wants a key as long as its hash, 256 bits (RFC 7518, 3.2). */
const MIN_IDENTITY_SECRET_LENGTH = 32;

/** What the site's `actions:` need beside the file: the signing secret and how a visitor token is checked. */
export interface ActionsEnv {
  /** `ACTIONS_SECRET`: signs each call to the owner's API (`X-Assistant-Signature`); the confirmation
   * tokens' key comes from the site's secret instead (server/server-parts.ts). */
  secret?: string;
  /** `IDENTITY_SECRET`: the key the host site's backend signs visitor tokens with (HS256). */
  identitySecret?: string;
  /** `IDENTITY_PUBLIC_KEY`: the PEM public key of the site's visitor tokens (RS256 or ES256). */
  identityPublicKey?: string;
}

/** `ACTIONS_SECRET`, `IDENTITY_SECRET` and `IDENTITY_PUBLIC_KEY`; a bad value is a problem, never repeated. */
export function readActionsEnv(env: Env, problems: string[]): ActionsEnv {
  const config: ActionsEnv = {};
  const secret = readSecret(env, 'ACTIONS_SECRET', problems);
  if (secret) config.secret = secret;
  const identitySecret = readSecret(env, 'IDENTITY_SECRET', problems, MIN_IDENTITY_SECRET_LENGTH);
  if (identitySecret) config.identitySecret = identitySecret;
  // A .env file holds one line per variable: a PEM written there has its line breaks as \n.
  const pem = env.IDENTITY_PUBLIC_KEY?.trim().replace(/\\n/g, '\n');
  if (pem) {
    const problem = publicKeyProblem(pem);
    if (problem) problems.push(`IDENTITY_PUBLIC_KEY ${problem}`);
    else config.identityPublicKey = pem;
  }
  return config;
}

/** Why a PEM is not a key that RS256 or ES256 tokens can be checked with. */
function publicKeyProblem(pem: string): string | undefined {
  const forms = 'must be a PEM public key (-----BEGIN PUBLIC KEY-----), RSA (RS256) or P-256 (ES256)';
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType === 'rsa') return undefined;
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return undefined;
    return forms;
  } catch {
    return forms;
  }
}
