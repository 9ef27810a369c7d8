// The CPU time of one thread of this process, from Linux's /proc: a worker at the lowest priority (behind-chat.ts)
// waits for a core whenever chat or anything else wants one, so its wall time says how busy the machine is, not what
// its page costs. Elsewhere there is no such figure, and the caller counts wall time.
import { readFileSync } from 'node:fs';

/** /proc counts CPU time in USER_HZ ticks, 100 a second on every Linux architecture Node runs on. */
const TICK_MS = 10;

/** The calling thread's id (a worker's own, not the process's), or `undefined` off Linux. */
export function ownThreadId(): number | undefined {
  try {
    return Number.parseInt(readFileSync('/proc/thread-self/stat', 'utf8'), 10) || undefined;
  } catch {
    return undefined;
  }
}

/** The CPU time thread `id` of this process has used, in ms (user and system), or `undefined` when unknown. */
export function threadCpuMs(id: number | undefined): number | undefined {
  if (id === undefined) return undefined;
  try {
    // After the name in parentheses (which may hold spaces), field 3 (the state) onwards: utime and stime are 14 and 15.
    const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}
