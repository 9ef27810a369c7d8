import { type Env, readInteger, readSecret } from './env-values.ts';

/** Messages per UTC day the whole site may send to a person (`HANDOFF_DAILY_LIMIT` unset). */
export const DEFAULT_HANDOFF_DAILY_LIMIT = 50;
/** Seconds a visitor has the form open before sending it (`HANDOFF_MIN_SECONDS` unset); sooner is a script. */
export const DEFAULT_HANDOFF_MIN_SECONDS = 3;

/** How messages to a person leave the server: what the site's `handoff:` block needs beside its addresses. */
export interface HandoffEnv {
  /** `SMTP_URL`: `smtp://user:pass@host:587` or `smtps://…`; never logged (it holds a password). */
  smtpUrl?: string;
  /** `HANDOFF_FROM`: the sender's address; unset, the SMTP user's (or `assistant@` the SMTP host). */
  from?: string;
  /** `HANDOFF_WEBHOOK_SECRET`: signs each webhook body (`X-Assistant-Signature`). */
  webhookSecret?: string;
  /** `HANDOFF_DAILY_LIMIT`: messages per UTC day for the whole site. */
  dailyLimit: number;
  /** `HANDOFF_MIN_SECONDS`: a form sent sooner after it was opened is refused as filled by a script (0: never). */
  minSeconds: number;
}

/** `SMTP_URL`, `HANDOFF_FROM`, `HANDOFF_WEBHOOK_SECRET`, `HANDOFF_DAILY_LIMIT` and `HANDOFF_MIN_SECONDS`; a bad value is a problem. */
export function readHandoffEnv(env: Env, problems: string[]): HandoffEnv {
  const config: HandoffEnv = {
    dailyLimit: readInteger(env, 'HANDOFF_DAILY_LIMIT', DEFAULT_HANDOFF_DAILY_LIMIT, 1, 1_000_000, problems),
    minSeconds: readInteger(env, 'HANDOFF_MIN_SECONDS', DEFAULT_HANDOFF_MIN_SECONDS, 0, 600, problems),
  };
  const smtpUrl = env.SMTP_URL?.trim();
  if (smtpUrl) {
    const protocol = URL.parse(smtpUrl)?.protocol;
    // The value holds a password: it is never repeated.
    if (protocol === 'smtp:' || protocol === 'smtps:') config.smtpUrl = smtpUrl;
    else problems.push('SMTP_URL must be an smtp:// or smtps:// URL such as smtp://user:password@smtp.example:587');
  }
  const from = env.HANDOFF_FROM?.trim();
  if (from) {
    if (/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(from)) config.from = from;
    else problems.push(`HANDOFF_FROM must be an address such as assistant@shop.example (got "${from}")`);
  }
  const secret = readSecret(env, 'HANDOFF_WEBHOOK_SECRET', problems);
  if (secret) config.webhookSecret = secret;
  return config;
}
