import type { Deliver } from './deliver.ts';
import type { Outbox, OutboxEntry } from './outbox-types.ts';

/** The delivery's clock: how soon a failed message is tried again, how long in all, how often the outbox is read. */
export interface DeliveryTimes {
  /** The wait after the first failure; each next one doubles it, up to `maxRetryMs`. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** After this since the visitor sent it, a message still undelivered is set aside. */
  giveUpMs: number;
  /** How often the outbox is read for what is due (and for what another replica's crash left). */
  pollMs: number;
  /** How long a claim keeps other replicas off a message: longer than an attempt on every channel. */
  leaseMs: number;
}

export const DEFAULT_DELIVERY_TIMES: DeliveryTimes = {
  firstRetryMs: 30_000,
  maxRetryMs: 60 * 60_000,
  giveUpMs: 24 * 60 * 60_000,
  pollMs: 15_000,
  leaseMs: 5 * 60_000,
};

/** What the worker reports, for the owner's counts: never a message's text. */
export type DeliveryOutcome = 'delivered' | 'failed';

export interface DeliveryWorker {
  /** Reads the outbox now (a message was just put there). */
  kick(): void;
  /** Stops reading; resolves once the attempt under way has ended. */
  stop(): Promise<void>;
}

/** The wait before attempt `attempts + 1`: `first * 2^(attempts - 1)`, at most `max`. */
export function retryDelay(attempts: number, { firstRetryMs, maxRetryMs }: DeliveryTimes): number {
  return Math.min(firstRetryMs * 2 ** Math.max(0, attempts - 1), maxRetryMs);
}

/**
 * Delivers what the outbox holds: each due message on each channel it still lacks; delivered everywhere, it is
 * deleted; a failure waits longer each time; after `giveUpMs` it is set aside with one line. The log says counts and
 * outcomes, never what the visitor wrote or their address.
 */
export function startDeliveryWorker(
  outbox: Outbox,
  deliver: Deliver,
  options: { times?: DeliveryTimes; log: (line: string) => void; outcome?: (outcome: DeliveryOutcome) => void },
): DeliveryWorker {
  const times = options.times ?? DEFAULT_DELIVERY_TIMES;
  const { log } = options;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let storeDown = false;

  const round = async () => {
    do {
      again = false;
      let due: OutboxEntry[];
      try {
        due = await outbox.claimDue(Date.now(), 20, times.leaseMs);
        if (storeDown) log('[handoff] the outbox can be read again');
        storeDown = false;
      } catch (error) {
        if (!storeDown) log(`[handoff] the outbox cannot be read (${reason(error)}): trying again`);
        storeDown = true;
        return;
      }
      for (const entry of due) {
        if (stopped) return;
        await attempt(entry, outbox, deliver, times, options).catch((error: unknown) =>
          log(`[handoff] message ${entry.id}: the outbox could not be updated (${reason(error)})`),
        );
      }
      again ||= due.length === 20;
    } while (again && !stopped);
  };

  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round().finally(() => {
      running = undefined;
    });
  };
  const timer = setInterval(kick, times.pollMs);
  timer.unref();
  kick();
  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

interface AttemptOptions {
  log: (line: string) => void;
  outcome?: (outcome: DeliveryOutcome) => void;
}

/** One attempt at `entry` on each channel it lacks; then it is deleted, set aside, or put back for later. */
async function attempt(
  entry: OutboxEntry,
  outbox: Outbox,
  deliver: Deliver,
  times: DeliveryTimes,
  { log, outcome }: AttemptOptions,
): Promise<void> {
  const failures: string[] = [];
  const pending: OutboxEntry['pending'] = [];
  for (const channel of entry.pending) {
    try {
      await deliver(channel, entry.message);
    } catch (error) {
      pending.push(channel);
      failures.push(`${channel}: ${reason(error)}`);
    }
  }
  const now = Date.now();
  if (pending.length === 0) {
    await outbox.remove(entry.id);
    log(`[handoff] message ${entry.id} delivered after ${entry.attempts + 1} attempt(s)`);
    outcome?.('delivered');
    return;
  }
  if (now - entry.createdAt >= times.giveUpMs) {
    const where = await outbox.setAside(entry);
    log(`[handoff] message ${entry.id} undeliverable for a day (${failures.join('; ')}): moved to ${where}`);
    outcome?.('failed');
    return;
  }
  const attempts = entry.attempts + 1;
  const nextAt = Math.min(now + retryDelay(attempts, times), entry.createdAt + times.giveUpMs);
  // A channel that took it is not tried again: only what is still pending is kept.
  await outbox.update({ ...entry, attempts, pending, nextAt });
  const wait = Math.round((nextAt - now) / 1000);
  log(`[handoff] message ${entry.id} not delivered (${failures.join('; ')}): attempt ${attempts + 1} in ${wait} s`);
}

/** Why an attempt failed, as a log may say it: a code or a status, never a message or an address with a password. */
function reason(error: unknown): string {
  const { code, responseCode, name } = error as { code?: string; responseCode?: number; name?: string };
  if (responseCode) return `SMTP ${responseCode}`;
  if (code) return code;
  const text = (error as Error).message ?? '';
  return /^the webhook answered \d+$/.test(text) ? text : (name ?? 'Error');
}
