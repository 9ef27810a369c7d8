import type { StatsCounts } from '../contract/feedback.ts';

/** A day's counts for the owner page's tests: zeros but for `fields`. */
export const statsCounts = (fields: Partial<StatsCounts> = {}): StatsCounts => ({
  conversations: 0,
  messages: 0,
  with_sources: 0,
  without_sources: 0,
  up: 0,
  down: 0,
  down_reasons: { wrong: 0, outdated: 0, unclear: 0, off_topic: 0, other: 0 },
  limited: 0,
  errors: 0,
  first_piece_ms: { p50: 0, p95: 0 },
  handoffs: { offered: 0, sent: 0, delivered: 0, failed: 0 },
  actions: {},
  ...fields,
});
