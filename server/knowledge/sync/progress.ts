/** How often the server's log says how a sync is going; the command line says it more often. */
export const SERVER_PROGRESS_MS = 10_000;

const duration = (ms: number) => {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
};

/** `1,234`: counts read at a glance. */
const count = (n: number) => n.toLocaleString('en-US');

/**
 * A sync's progress as lines at a steady pace, at most one per `everyMs`: pages done of the total so far, the rate,
 * and the time left at that rate. The same lines go to the server's log and the command line.
 */
export function progressLines(log: (line: string) => void, everyMs: number, now = () => Date.now()) {
  const started = now();
  let last = started;
  return (done: number, total: number) => {
    const at = now();
    if (at - last < everyMs || done === 0) return;
    last = at;
    const rate = done / ((at - started) / 1000);
    const left = rate > 0 ? duration(((total - done) / rate) * 1000) : 'unknown';
    log(`[knowledge] ${count(done)} of ${count(total)} pages, ${rate.toFixed(1)} pages/s, about ${left} left`);
  };
}
