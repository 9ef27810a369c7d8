// "Talk to a person": the form the card shows and the server's `POST /api/handoff`. Plain constants and types shared by
// the page's lazy form and the server. No imports: every side may use it.

/** `GET` a form token here (`{ token }`), `POST` a {@link HandoffBody} with it: 202 once the message is in the outbox. */
export const HANDOFF_PATH = '/api/handoff';

/** The longest message a visitor may write. */
export const MAX_HANDOFF_MESSAGE = 2000;
/** The most messages of the conversation that may go with it, and their most bytes (UTF-8, as JSON). */
export const MAX_HANDOFF_TURNS = 50;
export const MAX_HANDOFF_CONVERSATION_BYTES = 32 * 1024;
/** The largest body taken. */
export const MAX_HANDOFF_BODY_BYTES = 64 * 1024;
/** The longest address (RFC 5321's path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** The hidden field a person never fills: a body that has it filled is taken in silence and never sent. */
export const HONEYPOT_FIELD = 'website';

export interface HandoffTurn {
  role: 'user' | 'assistant';
  text: string;
}

/** What the form sends. */
export interface HandoffBody {
  token: string;
  email: string;
  message: string;
  conversation?: HandoffTurn[];
  /** The host page's path, when the card knows it. */
  page?: string;
  language: string;
  [HONEYPOT_FIELD]?: string;
}

/** Why a message was refused: the `code` of the 4xx, which the form turns into one sentence. */
export const HANDOFF_REFUSALS = [
  'unsupported_media_type',
  'body_too_large',
  'invalid_body',
  'invalid_email',
  'invalid_message',
  'conversation_too_long',
  'missing_token',
  'invalid_token',
  'expired_token',
  'too_soon',
  'replayed_token',
  'rate_limited',
] as const;
export type HandoffRefusal = (typeof HANDOFF_REFUSALS)[number];

/** Whether `text` is an address the server takes: one `@`, a domain with a dot, no white space or line break. */
export function isEmailAddress(text: string): boolean {
  return text.length <= MAX_EMAIL_LENGTH && /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(text);
}
