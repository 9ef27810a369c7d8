import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long work on the server's thread (indexing, chunking a sync's pages) yields a turn of the event loop whenever it has
 * run this long, so a chat request waits at most about this for it: a passage is cut into terms in microseconds, a
 * page of unique words in whole seconds, and a count of items between turns cannot tell the two apart.
 */
export const SLICE_MS = 2;

/** Yields when the current slice has run its time (`undefined` while it has not): call it after each item of work. */
export function slicer(): () => Promise<void> | undefined {
  let started = performance.now();
  return () => {
    if (performance.now() - started < SLICE_MS) return undefined;
    return nextTurn().then(() => {
      started = performance.now();
    });
  };
}
