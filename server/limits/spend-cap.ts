import type { Context } from 'hono';
import { LIMIT_ERROR_CODES } from '../../contract/llm.ts';
import { apiError } from '../api-error.ts';
import type { Counters } from './counters.ts';

/** The token usage a provider reports with a completion (OpenAI's `usage` object). */
export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
}

/** Reads an OpenAI-style `usage` object; `undefined` when there is none or it is not one. */
export function readUsage(value: unknown): TokenUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
  } = value as Record<string, unknown>;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0);
  const usage = { prompt: count(prompt), completion: count(completion), total: count(total) };
  if (usage.total === 0) usage.total = usage.prompt + usage.completion;
  return usage.total > 0 ? usage : undefined;
}

/** The start of the next UTC day, in ms since the epoch: when the day's tokens are forgotten. */
export function nextUtcMidnight(now = Date.now()): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
}

/** Tokens held for one exchange until the provider says what it cost. */
export interface Reservation {
  readonly tokens: number;
  /** Replaces the reservation with the reported cost (once; later calls change nothing). Resolves to today's total. */
  settle(spent: number): Promise<number | undefined>;
}

/**
 * `LLM_DAILY_TOKEN_LIMIT`: tokens per UTC day, counted in `counters` (Redis when set, so every replica sees one
 * total). Each request first reserves what it may cost, in one atomic step that refuses to pass the cap; the
 * reservation is then settled to the provider's reported usage. A reply whose usage never comes (the visitor left,
 * the call timed out, the provider does not report it) keeps its whole reservation.
 */
export class SpendCap {
  constructor(
    private readonly limit: number,
    private readonly counters: Counters,
  ) {}

  private key(now: number): string {
    return `tokens:${new Date(now).toISOString().slice(0, 10)}`;
  }

  /**
   * Reserves `tokens` for one exchange; when that would pass today's cap, reserves nothing and answers with the
   * seconds until the next UTC midnight instead (for `Retry-After`).
   */
  async reserve(tokens: number, now = Date.now()): Promise<Reservation | { retryAfter: number }> {
    const key = this.key(now);
    const resetAt = nextUtcMidnight(now);
    const today = await this.counters.add(key, tokens, resetAt, this.limit);
    if (today === undefined) return { retryAfter: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
    let settled = false;
    return {
      tokens,
      settle: async (spent) => {
        if (settled) return undefined;
        settled = true;
        // Counted on the day it was reserved, whatever the time now: that day's count holds the reservation.
        return this.counters.add(key, spent - tokens, resetAt);
      },
    };
  }

  get dailyLimit(): number {
    return this.limit;
  }
}

/** The cap's 429: the client's openai library reads it like a provider's rate limit, and waits for `Retry-After`. */
export function capRefusal(c: Context, retryAfter: number): Response {
  const refusal = apiError(
    c,
    429,
    LIMIT_ERROR_CODES.daily,
    'The daily usage limit is reached, please come back later.',
  );
  refusal.headers.set('Retry-After', String(retryAfter));
  return refusal;
}
