// Imported by the worker threads only (start-worker.ts, which finds them by its own place in the bundle, is not).
import { setPriority } from 'node:os';

/** The lowest priority a thread can have: 19, nice's. */
const LOWEST_PRIORITY = 19;

/**
 * Gives the calling worker thread the lowest priority, so that the thread serving chat runs first whenever the CPU is
 * short: a sync's extraction and indexing then take only the time chat leaves. On Linux a thread's nice value is its
 * own (`setpriority` on 0 names the calling thread); elsewhere it is the whole process's, so there it stays as it is.
 */
export function runBehindChat() {
  if (process.platform !== 'linux') return;
  try {
    setPriority(LOWEST_PRIORITY);
  } catch {
    // A system that refuses (a container's seccomp policy) keeps the thread at its priority: slower chat, not a fault.
  }
}
