// How the running library retries: one attempt at a time, the next after a wait that grows with failures of each kind.
import { SyncWriteError } from './sync.ts';

/** How the last attempt went: the store answered, could not be reached (`failures` in a row), or could not be written. */
export type Health =
  | { kind: 'ok' }
  | { kind: 'unavailable'; failures: number; last: string }
  | { kind: 'unwritable'; failures: number };

/**
 * After an attempt: the next health, the wait before the next attempt, and the line to log (one per kind of failure,
 * not one per attempt). A sync whose pages could not be written read its sources at a cost to them and to us: it waits
 * like a failed sync, growing from the poll to the refresh interval, not like a store that cannot be reached.
 */
export function afterAttempt(
  health: Health,
  error: Error | undefined,
  times: { pollMs: number; refreshMs: number; retryCapMs: number },
  home: string,
): { health: Health; wait: number; line?: string } {
  if (!error) {
    const line = health.kind === 'unavailable' ? `[knowledge] ${home} answers again` : undefined;
    return { health: { kind: 'ok' }, wait: times.pollMs, line };
  }
  if (error instanceof SyncWriteError) {
    const failures = health.kind === 'unwritable' ? health.failures : 0;
    const wait = Math.min(times.refreshMs, times.pollMs * 2 ** failures);
    const line = `[knowledge] ${error.message}; the last store is kept, and synced again in ${Math.ceil(wait / 1000)} s`;
    return { health: { kind: 'unwritable', failures: failures + 1 }, wait, line };
  }
  const [failures, last] = health.kind === 'unavailable' ? [health.failures, health.last] : [0, ''];
  const line = error.message === last ? undefined : `[knowledge] ${home} is unavailable: ${error.message}`;
  return {
    health: { kind: 'unavailable', failures: failures + 1, last: error.message },
    wait: Math.min(times.retryCapMs, 1000 * 2 ** failures),
    line,
  };
}

export /**
 * One attempt at a time, the next scheduled after it: `settle` says how long to wait after an attempt that ended
 * (with its error, if any). `refresh` waits for the attempt under way, then makes one of every source.
 */
function attempts(attempt: (all: boolean) => Promise<void>, settle: (error: Error | undefined) => number) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(false), delay).unref();
  };
  const run = (all: boolean): Promise<void> => {
    running ??= attempt(all)
      .then(
        () => schedule(settle(undefined)),
        (error: Error) => schedule(settle(error)),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  return {
    run,
    refresh: async () => {
      await running;
      await run(true);
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
