import {
  type ActionCount,
  FEEDBACK_RATINGS,
  FEEDBACK_REASONS,
  type HandoffEvent,
  type Stats,
} from '../../contract/feedback.ts';
import type { ReplySource, ReplyTokenFields } from '../../contract/llm.ts';
import type { Metrics } from '../metrics.ts';
import type { CountStore, DayCounts } from './count-store.ts';
import {
  MAX_TOKEN_PAGES,
  pageDigest,
  type ReplyClaims,
  type ReplyTokens,
  replyTokens,
  TOKEN_LIFETIME_MS,
  type TokenProblem,
  utcDay,
} from './reply-token.ts';
import {
  ACTION_FIELD,
  buildStats,
  firstPieceField,
  lastDays,
  readVote,
  type Vote,
  voteFields,
  writeVote,
} from './stats.ts';

/** What the chat route counts, never with a visitor's text. */
export type ChatCount =
  | { kind: 'message'; first: boolean }
  | { kind: 'answer'; withSources: boolean }
  | { kind: 'limited' }
  | { kind: 'error' }
  | { kind: 'first-piece'; ms: number }
  | { kind: 'handoff'; event: HandoffEvent }
  | { kind: 'action'; action: string; event: ActionCount };

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
  /** The site's secret (`FEEDBACK_SECRET`, or the store's): other signed tokens (the handoff form's) draw keys from it. */
  secret(): Promise<string>;
  close(): Promise<void>;
}

export interface FeedbackOptions {
  store: CountStore;
  /** `FEEDBACK_SECRET`; unset: the store's own, made once and shared by the replicas. */
  secret?: string;
  metrics?: Metrics;
  log: (line: string) => void;
  now?: () => number;
  /**
   * The addresses of the site's pages now (the knowledge's index): where a token's page digests are looked up when a
   * Not helpful counts against the pages a reply cites. A page that has left the site since is counted against none.
   */
  pages?: () => readonly string[];
}

export function createFeedback({ store, secret, metrics, log, now = Date.now, pages }: FeedbackOptions): Feedback {
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
      // By number, [1] first: a vote names the ones its reply cites by theirs. A page is counted by its address, not
      // the section the reply was given.
      const count = Math.min(MAX_TOKEN_PAGES, Math.max(0, ...sources.map(({ n }) => n)));
      const addresses = Array.from(
        { length: count },
        (_, index) => sources.find(({ n }) => n === index + 1)?.page ?? '',
      );
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
      const reply = signer.issue(addresses, now());
      return hasKnowledge && sources.length === 0 ? { reply, uncovered: true } : { reply };
    },
    count(event) {
      add(utcDay(now()), countedFields(event, metrics));
    },
    async vote(body) {
      const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      if (!isVoteBody(record)) return { ok: false, code: 'invalid_body' };
      const { reply, rating, reason, cited } = record;
      const claims = (await tokensNow()).check(reply, now());
      if (typeof claims === 'string') return { ok: false, code: claims };
      // Only pages the reply was given: a number the token does not hold is no vote.
      const numbers = [...new Set((cited as number[] | undefined) ?? [])];
      if (numbers.some((n) => n > claims.pages.length)) return { ok: false, code: 'invalid_body' };
      // A Helpful counts against no page: its pages are not kept.
      const vote = writeVote({
        rating: rating as Vote['rating'],
        reason: reason as Vote['reason'],
        cited: rating === 'down' ? numbers : [],
      });
      const previous = await store.swapVote(claims.id, vote, claims.issued + TOKEN_LIFETIME_MS);
      if (previous === vote) return { ok: true };
      const [cast, before] = [readVote(vote), previous === undefined ? undefined : readVote(previous)];
      const citedOf = (which: Vote) => citedAddresses(claims, which);
      await store.add(utcDay(claims.issued), voteChange(cast, before, citedOf));
      moveVoteMetrics(metrics, cast, before);
      return { ok: true };
    },
    async stats(days) {
      const span = lastDays(days, now());
      return buildStats(span, await store.read(span));
    },
    secret: () => (secret ? Promise.resolve(secret) : store.secret()),
    close: () => store.close(),
  };

  /** The addresses of the pages `vote` cites, among those of `claims`, found among the site's pages now. */
  function citedAddresses(claims: ReplyClaims, vote: Vote): string[] {
    const byDigest = digestsOf(pages?.() ?? []);
    return vote.cited.flatMap((n) => byDigest.get(claims.pages[n - 1]) ?? []);
  }
}

/** The day's counts a vote changes: its own added, the one it replaces (if any) taken back. */
function voteChange(vote: Vote, before: Vote | undefined, cited: (vote: Vote) => string[]): DayCounts {
  const fields = voteFields(vote, cited(vote), 1);
  for (const [field, amount] of Object.entries(before ? voteFields(before, cited(before), -1) : {})) {
    fields[field] = (fields[field] ?? 0) + amount;
  }
  return fields;
}

/** The process's vote gauges: the replaced vote (and its reason) out, the new one in. */
function moveVoteMetrics(metrics: Metrics | undefined, vote: Vote, before: Vote | undefined): void {
  if (before) metrics?.votes.dec({ rating: before.rating });
  metrics?.votes.inc({ rating: vote.rating });
  if (before?.reason) metrics?.downReasons.dec({ reason: before.reason });
  if (vote.reason) metrics?.downReasons.inc({ reason: vote.reason });
}

/** What a vote's body may hold. */
const VOTE_KEYS = new Set(['reply', 'rating', 'reason', 'cited']);

/** A vote's body: a rating, a reason only with Not helpful, the cited numbers, and nothing else. */
function isVoteBody(record: Record<string, unknown>): boolean {
  const { rating, reason, cited } = record;
  return (
    FEEDBACK_RATINGS.includes(rating as never) &&
    (reason === undefined || (rating === 'down' && FEEDBACK_REASONS.includes(reason as never))) &&
    (cited === undefined || isNumberList(cited)) &&
    Object.keys(record).every((key) => VOTE_KEYS.has(key))
  );
}

/** The day's counts an event adds (and the metrics it moves): what site owners learn, never a question or a reply. */
function countedFields(event: ChatCount, metrics: Metrics | undefined): DayCounts {
  if (event.kind === 'message') {
    metrics?.messages.inc();
    if (event.first) metrics?.conversations.inc();
    return event.first ? { messages: 1, conversations: 1 } : { messages: 1 };
  } else if (event.kind === 'answer') {
    const field = event.withSources ? 'with_sources' : 'without_sources';
    metrics?.replies.inc({ sources: event.withSources ? 'with' : 'without' });
    return { [field]: 1 };
  } else if (event.kind === 'limited') {
    return { limited: 1 };
  } else if (event.kind === 'error') {
    metrics?.replyErrors.inc();
    return { errors: 1 };
  } else if (event.kind === 'handoff') {
    return { [`handoff_${event.event}`]: 1 };
  } else if (event.kind === 'action') {
    return { [`${ACTION_FIELD}${event.action}:${event.event}`]: 1 };
  } else {
    metrics?.firstPiece.observe(event.ms / 1000);
    return { [firstPieceField(event.ms)]: 1 };
  }
}

/** The numbers of the sources a reply cites, `[1]` as 1: a short list of small whole numbers. */
function isNumberList(value: unknown): value is number[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_TOKEN_PAGES &&
    value.every((n) => Number.isSafeInteger(n) && n >= 1 && n <= MAX_TOKEN_PAGES)
  );
}

/** The site's pages by digest, worked out once for each list of them (one an index). */
const digestCache = new WeakMap<readonly string[], Map<string, string>>();
function digestsOf(addresses: readonly string[]): Map<string, string> {
  let byDigest = digestCache.get(addresses);
  if (!byDigest) {
    byDigest = new Map(addresses.map((address) => [pageDigest(address), address]));
    digestCache.set(addresses, byDigest);
  }
  return byDigest;
}
