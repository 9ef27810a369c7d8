// The sync lock of both homes is a lease: its holder names itself and renews it while it syncs; a lease that runs out
// (its holder was killed, its host or container is gone) is taken over, with a log line.

/** How long a sync lock lasts without its holder's renewal. */
export const SYNC_LEASE_MS = 60_000;

/** One holder's lease on a store's sync lock. */
export interface Lease {
  /** Takes the lock, or takes over a stale one (saying so): `false` when a live holder has it. */
  take(): Promise<boolean>;
  /** Extends it by another lease: `false` when it is no longer this holder's. */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** Runs `work` holding `lease`, renewed every third of `leaseMs` while it runs; `{ ran: false }` when it is held. */
export async function underLease<T>(
  lease: Lease,
  leaseMs: number,
  home: string,
  log: (line: string) => void,
  work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  if (!(await lease.take())) return { ran: false };
  let said = false;
  let renewing = false;
  const say = (line: string) => {
    if (!said) log(line);
    said = true;
  };
  const heartbeat = setInterval(() => {
    if (renewing) return;
    renewing = true;
    lease
      .renew()
      .then(
        (ours) => ours || say(`[knowledge] the sync lock of ${home} was taken over while this sync ran`),
        (error: Error) => say(`[knowledge] the sync lock of ${home} could not be renewed: ${error.message}`),
      )
      .finally(() => {
        renewing = false;
      });
  }, leaseMs / 3);
  heartbeat.unref();
  try {
    return { ran: true, result: await work() };
  } finally {
    clearInterval(heartbeat);
    await lease.release().catch(() => {});
  }
}
