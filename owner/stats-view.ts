import type { FeedbackReason, HandoffEvent, Stats } from '../contract/feedback';

/** The reasons' names as the visitor saw them (locales/en.ts): the owner's page is in English only. */
export const REASON_NAMES: Record<FeedbackReason, string> = {
  wrong: 'Wrong',
  outdated: 'Out of date',
  unclear: 'Unclear',
  off_topic: 'Not what I asked',
  other: 'Something else',
};

/** `part` of `whole` as a whole percentage, or `undefined` when there is no whole to share. */
export function share(part: number, whole: number): number | undefined {
  return whole > 0 ? Math.round((part / whole) * 100) : undefined;
}

/** A share as the page writes it: "—" when there was nothing to count. */
export function percentText(value: number | undefined): string {
  return value === undefined ? '—' : `${value}%`;
}

/** What the page shows, from the stats: the charts' series and the figures beside them. */
export interface StatsView {
  /** Each day's midnight, UTC, in seconds (uPlot's time axis). */
  times: number[];
  /** How many conversations began in the span (a visitor's first message in a conversation). */
  conversations: number;
  messages: number[];
  /** Each day's share of replies the site's pages did not cover; `null` on a day with no reply (a gap, not 0%). */
  uncovered: (number | null)[];
  answeredFromPages: number | undefined;
  up: number;
  down: number;
  reasons: { name: string; count: number }[];
  downSources: Stats['down_sources'];
  /** "Contact a person", in all and on each day that had any, newest first. */
  handoffs: Record<HandoffEvent, number>;
  handoffDays: ({ date: string } & Record<HandoffEvent, number>)[];
}

export function statsView(stats: Stats): StatsView {
  const { totals } = stats;
  return {
    times: stats.days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000),
    conversations: totals.conversations,
    messages: stats.days.map((day) => day.messages),
    uncovered: stats.days.map((day) => share(day.without_sources, day.with_sources + day.without_sources) ?? null),
    answeredFromPages: share(totals.with_sources, totals.with_sources + totals.without_sources),
    up: totals.up,
    down: totals.down,
    reasons: Object.entries(REASON_NAMES).map(([code, name]) => ({
      name,
      count: totals.down_reasons[code as FeedbackReason] ?? 0,
    })),
    downSources: stats.down_sources,
    handoffs: totals.handoffs,
    handoffDays: stats.days
      .filter((day) => Object.values(day.handoffs).some((n) => n > 0))
      .map((day) => ({ date: day.date, ...day.handoffs }))
      .reverse(),
  };
}
