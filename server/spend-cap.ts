import type { MiddlewareHandler } from 'hono';
import { CHAT_COMPLETIONS_PATH } from '../contract/llm.ts';
import { apiError } from './api-error.ts';
import type { Counters } from './counters.ts';
import type { Metrics } from './metrics.ts';

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

/**
 * `LLM_DAILY_TOKEN_LIMIT`: the tokens the provider reported today (UTC), counted in `counters` (Redis when set, so
 * every replica sees one total). Requests already under way when the cap is reached still finish, so the day can end
 * a few replies (at most `max_tokens` each) over it.
 */
export class SpendCap {
  constructor(
    private readonly limit: number,
    private readonly counters: Counters,
  ) {}

  private key(now: number): string {
    return `tokens:${new Date(now).toISOString().slice(0, 10)}`;
  }

  /** `undefined` while under the cap; past it, the seconds until the next UTC midnight (for `Retry-After`). */
  async refusal(now = Date.now()): Promise<number | undefined> {
    if ((await this.counters.get(this.key(now))) < this.limit) return undefined;
    return Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000));
  }

  /** Adds a reply's reported usage; returns today's total. */
  record(tokens: number, now = Date.now()): Promise<number> {
    return this.counters.add(this.key(now), tokens, nextUtcMidnight(now));
  }

  get dailyLimit(): number {
    return this.limit;
  }
}

/** Refuses chat with the cap's 429 (and `Retry-After`) while today's count is past the cap. */
export function spendCapGuard(spendCap: SpendCap, log: (line: string) => void, metrics?: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const retryAfter = await spendCap.refusal();
    if (retryAfter === undefined) return next();
    log(`[llm-proxy] POST ${CHAT_COMPLETIONS_PATH} 429 daily token limit (${spendCap.dailyLimit}) reached`);
    metrics?.rateLimited.inc({ reason: 'spend_cap' });
    const answer = apiError(c, 429, 'daily_token_limit', 'The daily usage limit is reached, please come back later.');
    answer.headers.set('Retry-After', String(retryAfter));
    return answer;
  };
}

/** Counts a reply's usage in the metrics and, with a cap, in today's total (logged; a failure is logged, not thrown). */
export function usageRecorder(spendCap: SpendCap | undefined, log: (line: string) => void, metrics?: Metrics) {
  return async (usage: TokenUsage): Promise<void> => {
    metrics?.tokens.inc({ kind: 'prompt' }, usage.prompt);
    metrics?.tokens.inc({ kind: 'completion' }, usage.completion);
    if (!spendCap) return;
    try {
      const today = await spendCap.record(usage.total);
      log(`[llm-proxy] usage tokens=${usage.total} today=${today}/${spendCap.dailyLimit}`);
    } catch (error) {
      log(`[llm-proxy] usage not counted (${(error as Error).name})`);
    }
  };
}
