import type { Counters } from '../limits/limits.ts';
import type { Action } from './action-types.ts';

const DAY_MS = 86_400_000;

/** A call taken from the action's daily allowance, and how to give it back; or how long until the next UTC day. */
export type DailyCall = { ok: true; giveBack: () => Promise<void> } | { ok: false; retryAfterS: number };

/**
 * Takes one of `per_visitor_per_day` calls of `action` for `visitor` (the host page's `sub`, or the client's key),
 * counted per UTC day in the shared counters (Redis when set), so replicas and restarts agree. No limit: always taken.
 */
export async function takeDailyCall(
  counters: Counters,
  action: Action,
  visitor: string,
  now = Date.now(),
): Promise<DailyCall> {
  const limit = action.perVisitorPerDay;
  if (limit === undefined) return { ok: true, giveBack: async () => {} };
  const dayEnd = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  const key = `action-day:${action.name}:${dayEnd}:${visitor}`;
  if ((await counters.add(key, 1, dayEnd, limit)) === undefined) {
    return { ok: false, retryAfterS: Math.ceil((dayEnd - now) / 1000) };
  }
  return {
    ok: true,
    giveBack: async () => {
      await counters.add(key, -1, dayEnd);
    },
  };
}
