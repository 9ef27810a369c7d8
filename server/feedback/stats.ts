import {
  ACTION_COUNTS,
  type ActionCount,
  FEEDBACK_REASONS,
  type FeedbackRating,
  type FeedbackReason,
  HANDOFF_EVENTS,
  type HandoffEvent,
  STATS_MAX_DAYS,
  type Stats,
  type StatsCounts,
} from '../../contract/feedback.ts';
import type { DayCounts } from './count-store.ts';
import { utcDay } from './reply-token.ts';

/**
 * The upper bounds (ms) of the buckets of the time to a reply's first piece: fine where replies usually start, coarse
 * beyond. A time past the last bound falls in one more bucket, reported as the last bound.
 */
export const FIRST_PIECE_BUCKETS_MS = [250, 500, 750, 1000, 1500, 2000, 3000, 5000, 8000, 15000, 30000] as const;

/** The bucket field of a first piece after `ms`. */
export function firstPieceField(ms: number): string {
  const index = FIRST_PIECE_BUCKETS_MS.findIndex((bound) => ms <= bound);
  return `first_piece:${index === -1 ? FIRST_PIECE_BUCKETS_MS.length : index}`;
}

const DOWN_SOURCE = 'down_source:';
const DOWN_REASON = 'down_reason:';
/** `action:<name>:<event>`: an action's count (names are `[a-z_]`, so the field splits at its colons). */
export const ACTION_FIELD = 'action:';
/** How many of the site's pages with the most Not helpful the stats list. */
const TOP_DOWN_SOURCES = 20;

/** The UTC days from `days - 1` days before `now` up to today, oldest first. */
export function lastDays(days: number, now = Date.now()): string[] {
  const count = Math.min(Math.max(days, 1), STATS_MAX_DAYS);
  return Array.from({ length: count }, (_, index) => utcDay(now - (count - 1 - index) * 86_400_000));
}

/** The JSON of `GET /api/stats`: totals, each day (every day of the span, zeros included), and the pages most voted down. */
export function buildStats(days: readonly string[], counts: Record<string, DayCounts>): Stats {
  const all: DayCounts = {};
  for (const day of days) {
    for (const [field, amount] of Object.entries(counts[day] ?? {})) all[field] = (all[field] ?? 0) + amount;
  }
  const down_sources = Object.entries(all)
    .filter(([field, down]) => field.startsWith(DOWN_SOURCE) && down > 0)
    .map(([field, down]) => ({ address: field.slice(DOWN_SOURCE.length), down }))
    .sort((a, b) => b.down - a.down || a.address.localeCompare(b.address))
    .slice(0, TOP_DOWN_SOURCES);
  return {
    from: days[0],
    to: days[days.length - 1],
    totals: countsOf(all),
    days: days.map((date) => ({ date, ...countsOf(counts[date] ?? {}) })),
    down_sources,
  };
}

function countsOf(fields: DayCounts): StatsCounts {
  const n = (field: string) => Math.max(fields[field] ?? 0, 0);
  const down_reasons = Object.fromEntries(FEEDBACK_REASONS.map((reason) => [reason, n(`${DOWN_REASON}${reason}`)]));
  const buckets = [...FIRST_PIECE_BUCKETS_MS, FIRST_PIECE_BUCKETS_MS.length].map((_, index) =>
    n(`first_piece:${index}`),
  );
  return {
    conversations: n('conversations'),
    messages: n('messages'),
    with_sources: n('with_sources'),
    without_sources: n('without_sources'),
    up: n('up'),
    down: n('down'),
    down_reasons: down_reasons as Record<FeedbackReason, number>,
    limited: n('limited'),
    errors: n('errors'),
    first_piece_ms: { p50: percentile(buckets, 0.5), p95: percentile(buckets, 0.95) },
    handoffs: Object.fromEntries(HANDOFF_EVENTS.map((event) => [event, n(`handoff_${event}`)])) as Record<
      HandoffEvent,
      number
    >,
    actions: actionCounts(fields),
  };
}

/** Each action counted in `fields`, with all its counts (zeros included). */
function actionCounts(fields: DayCounts): StatsCounts['actions'] {
  const actions: StatsCounts['actions'] = {};
  for (const [field, amount] of Object.entries(fields)) {
    if (!field.startsWith(ACTION_FIELD)) continue;
    const [name, event] = field.slice(ACTION_FIELD.length).split(':');
    if (!ACTION_COUNTS.includes(event as ActionCount)) continue;
    actions[name] ??= Object.fromEntries(ACTION_COUNTS.map((count) => [count, 0])) as Record<ActionCount, number>;
    actions[name][event as ActionCount] += Math.max(amount, 0);
  }
  return actions;
}

/** The upper bound of the bucket where the `q` quantile falls (0 with no times). */
function percentile(buckets: readonly number[], q: number): number {
  const total = buckets.reduce((sum, count) => sum + count, 0);
  if (total === 0) return 0;
  let seen = 0;
  for (const [index, count] of buckets.entries()) {
    seen += count;
    if (seen >= q * total) return FIRST_PIECE_BUCKETS_MS[Math.min(index, FIRST_PIECE_BUCKETS_MS.length - 1)];
  }
  return FIRST_PIECE_BUCKETS_MS[FIRST_PIECE_BUCKETS_MS.length - 1];
}

/** A reply's current vote, as the store keeps it: the rating, the reason, and the numbers of the pages it counts against. */
export interface Vote {
  rating: FeedbackRating;
  reason?: FeedbackReason;
  /** The numbers (`[1]` as 1) of the sources the reply cites, for a Not helpful; none for a Helpful. */
  cited: number[];
}

/** A vote as the store keeps it: `up`, `down`, `down:<reason>`, then `@1,3` when it counts against pages. */
export function writeVote({ rating, reason, cited }: Vote): string {
  return `${rating}${reason ? `:${reason}` : ''}${cited.length > 0 ? `@${cited.join(',')}` : ''}`;
}

/** A vote the store kept ({@link writeVote}; one kept before pages were cited has none). */
export function readVote(kept: string): Vote {
  const [kind, numbers = ''] = kept.split('@');
  const [rating, reason] = kind.split(':');
  return {
    rating: rating as FeedbackRating,
    ...(reason ? { reason: reason as FeedbackReason } : {}),
    cited: numbers === '' ? [] : numbers.split(',').map(Number),
  };
}

/** The fields a vote adds to its reply's day (taken back with `-1` when the vote is replaced): a Not helpful counts
 * against each of `addresses` (the pages it cites) once. */
export function voteFields({ rating, reason }: Vote, addresses: readonly string[], sign: 1 | -1): DayCounts {
  const fields: DayCounts = { [rating]: sign };
  if (rating === 'down') {
    if (reason) fields[`${DOWN_REASON}${reason}`] = sign;
    for (const address of new Set(addresses)) fields[`${DOWN_SOURCE}${address}`] = sign;
  }
  return fields;
}
