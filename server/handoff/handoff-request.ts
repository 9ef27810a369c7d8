import {
  type HandoffRefusal,
  type HandoffTurn,
  HONEYPOT_FIELD,
  isEmailAddress,
  MAX_HANDOFF_CONVERSATION_BYTES,
  MAX_HANDOFF_MESSAGE,
  MAX_HANDOFF_TURNS,
} from '../../contract/handoff.ts';

/** A visitor's message as the outbox keeps it until it is delivered: what the owner receives, and nothing else. */
export interface HandoffMessage {
  email: string;
  message: string;
  conversation: HandoffTurn[];
  page?: string;
  language: string;
}

export type ReadHandoff =
  | { ok: true; token: unknown; message: HandoffMessage; honeypot: boolean }
  | { ok: false; code: HandoffRefusal };

const KEYS = new Set(['token', 'email', 'message', 'conversation', 'page', 'language', HONEYPOT_FIELD]);

/** The body of `POST /api/handoff`, rebuilt field by field, or the code of its first problem. */
export function readHandoffBody(body: unknown): ReadHandoff {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, code: 'invalid_body' };
  const record = body as Record<string, unknown>;
  if (!Object.keys(record).every((key) => KEYS.has(key))) return { ok: false, code: 'invalid_body' };
  const { token, email, message, conversation, page, language } = record;
  if (typeof email !== 'string' || !isEmailAddress(email.trim())) return { ok: false, code: 'invalid_email' };
  if (typeof message !== 'string' || message.trim() === '' || [...message].length > MAX_HANDOFF_MESSAGE) {
    return { ok: false, code: 'invalid_message' };
  }
  const turns = readConversation(conversation);
  if (turns === 'invalid') return { ok: false, code: 'invalid_body' };
  if (turns === 'too_long') return { ok: false, code: 'conversation_too_long' };
  if (page !== undefined && (typeof page !== 'string' || page.length > 2000))
    return { ok: false, code: 'invalid_body' };
  if (typeof language !== 'string' || !/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(language)) {
    return { ok: false, code: 'invalid_body' };
  }
  const trap = record[HONEYPOT_FIELD];
  return {
    ok: true,
    token,
    honeypot: typeof trap === 'string' ? trap !== '' : trap !== undefined,
    message: {
      email: email.trim(),
      message: message.trim(),
      conversation: turns,
      ...(page ? { page } : {}),
      language,
    },
  };
}

function readConversation(value: unknown): HandoffTurn[] | 'invalid' | 'too_long' {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return 'invalid';
  if (value.length > MAX_HANDOFF_TURNS) return 'too_long';
  const turns: HandoffTurn[] = [];
  for (const turn of value) {
    const { role, text } = (turn ?? {}) as Record<string, unknown>;
    if ((role !== 'user' && role !== 'assistant') || typeof text !== 'string') return 'invalid';
    turns.push({ role, text });
  }
  if (Buffer.byteLength(JSON.stringify(turns)) > MAX_HANDOFF_CONVERSATION_BYTES) return 'too_long';
  return turns;
}
