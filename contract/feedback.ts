// The visitor's vote on a reply, and the owner's counts: plain constants and types shared by the app, the server and
// the owner's page. No imports: every side may use it.

/** `POST` a {@link FeedbackBody} here: a vote on one reply, by the token the server gave with it. */
export const FEEDBACK_PATH = '/api/feedback';
export const FEEDBACK_RATINGS = ['up', 'down'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
/** Why a reply did not help: five fixed reasons and never free text, so that no visitor's words are ever kept. */
export const FEEDBACK_REASONS = ['wrong', 'outdated', 'unclear', 'off_topic', 'other'] as const;
export type FeedbackReason = (typeof FEEDBACK_REASONS)[number];

/**
 * What the page sends: no message text, only the reply's token, the vote and, with a Not helpful, the numbers of the
 * sources the reply cites (`[2]` as 2), which it counts against: only among those the token says it was given.
 */
export interface FeedbackBody {
  reply: string;
  rating: FeedbackRating;
  reason?: FeedbackReason;
  cited?: number[];
}

/** What the owner's counts say of messages to a person (server/handoff/). */
export const HANDOFF_EVENTS = ['offered', 'sent', 'delivered', 'failed'] as const;
export type HandoffEvent = (typeof HANDOFF_EVENTS)[number];

/**
 * What the owner's counts say of each action (server/actions/): reads called, writes proposed to the visitor, writes
 * confirmed and called, writes the visitor cancelled, calls that failed. Never an input or a result.
 */
export const ACTION_COUNTS = ['called', 'proposed', 'confirmed', 'cancelled', 'failed'] as const;
export type ActionCount = (typeof ACTION_COUNTS)[number];

/** The counts of one UTC day, or of a span of days (`GET /api/stats`): a public interface. */
export interface StatsCounts {
  conversations: number;
  messages: number;
  with_sources: number;
  without_sources: number;
  up: number;
  down: number;
  down_reasons: Record<FeedbackReason, number>;
  limited: number;
  errors: number;
  first_piece_ms: { p50: number; p95: number };
  /** "Contact a person": forms offered, messages sent by visitors, delivered to the site's people, set aside as failed. */
  handoffs: Record<HandoffEvent, number>;
  /** By action name, only the actions counted in the span. */
  actions: Record<string, Record<ActionCount, number>>;
}

export interface Stats {
  from: string;
  to: string;
  totals: StatsCounts;
  days: (StatsCounts & { date: string })[];
  down_sources: { address: string; down: number }[];
}

/** How many days of counts are kept, and the most `GET /api/stats?days=` asks for. */
export const STATS_MAX_DAYS = 90;
