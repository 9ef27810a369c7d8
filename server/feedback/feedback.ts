import { FEEDBACK_RATINGS, FEEDBACK_REASONS, type Stats } from '../../contract/feedback.ts';
import type { ReplySource, ReplyTokenFields } from '../../contract/llm.ts';
import type { Metrics } from '../metrics.ts';
import type { CountStore, DayCounts } from './count-store.ts';
import { type ReplyTokens, replyTokens, TOKEN_LIFETIME_MS, type TokenProblem, utcDay } from './reply-token.ts';
import { buildStats, firstPieceField, lastDays, voteFields } from './stats.ts';

/** What the chat route counts, never with a visitor's text. */
export type ChatCount =
  | { kind: 'message'; first: boolean }
  | { kind: 'answer'; withSources: boolean }
  | { kind: 'limited' }
  | { kind: 'error' }
  | { kind: 'first-piece'; ms: number };

export type VoteOutcome = { ok: true } | { ok: false; code: TokenProblem | 'invalid_body' };

/**
 * The owner's loop: reply tokens, votes and counts. The chat route counts through `count` (never awaited: counting
 * never slows a reply) and asks `issue` for each reply's token; the feedback route hands votes to `vote`; the stats
 * route reads `stats`. Prometheus gets the same counters as they happen.
 */
export interface Feedback {
  /** The reply's token; none while the secret cannot be read (Redis down): a vote is lost, never a reply. */
  issue(sources: readonly ReplySource[], hasKnowledge: boolean): Promise<ReplyTokenFields | undefined>;
  count(event: ChatCount): void;
  vote(body: unknown): Promise<VoteOutcome>;
  stats(days: number): Promise<Stats>;
  close(): Promise<void>;
}

export interface FeedbackOptions {
  store: CountStore;
  /** `FEEDBACK_SECRET`; unset: the store's own, made once and shared by the replicas. */
  secret?: string;
  metrics?: Metrics;
  log: (line: string) => void;
  now?: () => number;
}

export function createFeedback({ store, secret, metrics, log, now = Date.now }: FeedbackOptions): Feedback {
  let tokens: Promise<ReplyTokens> | undefined;
  /** Whether replies go without a token, said once when it starts and once when it ends. */
  let tokenless = false;
  const tokensNow = () => {
    tokens ??= (secret ? Promise.resolve(secret) : store.secret()).then(replyTokens);
    // A store that failed to give its secret is asked again next time.
    tokens.catch(() => {
      tokens = undefined;
    });
    return tokens;
  };
  const add = (day: string, fields: DayCounts) => {
    store.add(day, fields).catch((error: Error) => log(`[feedback] counts not kept (${error.name})`));
  };
  return {
    async issue(sources, hasKnowledge) {
      // A Not helpful counts against each page once, whichever of its sections the reply was given.
      const pages = [...new Set(sources.map(({ url }) => url.replace(/#.*$/s, '')))];
      let signer: ReplyTokens;
      try {
        signer = await tokensNow();
      } catch (error) {
        // The reply was paid for: it goes out, with nothing to vote on until the secret can be read again.
        if (!tokenless)
          log(`[feedback] replies carry no vote token until the secret can be read: ${(error as Error).message}`);
        tokenless = true;
        return undefined;
      }
      if (tokenless) log('[feedback] replies carry vote tokens again');
      tokenless = false;
      const reply = signer.issue(pages, now());
      return hasKnowledge && sources.length === 0 ? { reply, uncovered: true } : { reply };
    },
    count(event) {
      const day = utcDay(now());
      if (event.kind === 'message') {
        metrics?.messages.inc();
        if (event.first) metrics?.conversations.inc();
        add(day, event.first ? { messages: 1, conversations: 1 } : { messages: 1 });
      } else if (event.kind === 'answer') {
        const field = event.withSources ? 'with_sources' : 'without_sources';
        metrics?.replies.inc({ sources: event.withSources ? 'with' : 'without' });
        add(day, { [field]: 1 });
      } else if (event.kind === 'limited') {
        add(day, { limited: 1 });
      } else if (event.kind === 'error') {
        metrics?.replyErrors.inc();
        add(day, { errors: 1 });
      } else {
        metrics?.firstPiece.observe(event.ms / 1000);
        add(day, { [firstPieceField(event.ms)]: 1 });
      }
    },
    async vote(body) {
      const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      const { reply, rating, reason } = record;
      const valid =
        FEEDBACK_RATINGS.includes(rating as never) &&
        (reason === undefined || (rating === 'down' && FEEDBACK_REASONS.includes(reason as never))) &&
        Object.keys(record).every((key) => key === 'reply' || key === 'rating' || key === 'reason');
      if (!valid) return { ok: false, code: 'invalid_body' };
      const claims = (await tokensNow()).check(reply, now());
      if (typeof claims === 'string') return { ok: false, code: claims };
      const vote = reason ? `${rating}:${reason}` : String(rating);
      const previous = await store.swapVote(claims.id, vote, claims.issued + TOKEN_LIFETIME_MS);
      if (previous === vote) return { ok: true };
      const fields = voteFields(vote, claims.sources, 1);
      if (previous) {
        for (const [field, amount] of Object.entries(voteFields(previous, claims.sources, -1))) {
          fields[field] = (fields[field] ?? 0) + amount;
        }
      }
      await store.add(utcDay(claims.issued), fields);
      if (previous) metrics?.votes.dec({ rating: previous.split(':')[0] });
      metrics?.votes.inc({ rating: String(rating) });
      if (previous?.includes(':')) metrics?.downReasons.dec({ reason: previous.split(':')[1] });
      if (reason) metrics?.downReasons.inc({ reason: String(reason) });
      return { ok: true };
    },
    async stats(days) {
      const span = lastDays(days, now());
      return buildStats(span, await store.read(span));
    },
    close: () => store.close(),
  };
}
