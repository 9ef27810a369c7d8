import { createHash, randomUUID } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { writeWhole } from '../../data-files.ts';
import type { Lease } from './sync-lease.ts';

/** What `sync.lock` holds. */
interface LockRecord {
  owner: string;
  host: string;
  pid: number;
  expiresAt: number;
}

/**
 * The owners of the locks this process holds: a lock that names this process's pid and none of them was left by an
 * earlier process with the same pid (a server restarted in a container is pid 1 again).
 */
const heldHere = new Set<string>();

/** Whether the process `pid` of this host still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a lock is stale, or `undefined` while its holder lives. */
function staleness(held: LockRecord, now: number): string | undefined {
  if (held.expiresAt <= now) return `its lease ran out at ${new Date(held.expiresAt).toISOString()}`;
  if (held.host !== hostname()) return undefined;
  if (held.pid === process.pid && !heldHere.has(held.owner)) return 'an earlier process with the same pid left it';
  if (!alive(held.pid)) return 'its process is gone';
  return undefined;
}

/**
 * The embedded home's lease: `sync.lock` names its holder (an id of its own, its host and pid) and when its lease ends.
 * It is created whole or not at all; a stale one is taken over by one process only (whoever first creates the marker
 * named after it), and its holder's renewals keep it alive.
 */
export function fileLease(lockFile: string, leaseMs: number, log: (line: string) => void): Lease {
  const owner = randomUUID();
  const markers: string[] = [];
  const write = (exclusive: boolean) =>
    writeWhole(
      lockFile,
      async (put) => {
        await put(JSON.stringify({ owner, host: hostname(), pid: process.pid, expiresAt: Date.now() + leaseMs }));
      },
      { exclusive },
    );
  /** The lock as held now: `undefined` when there is none. A file that is not a lock (one of an older version) lasts a lease from its time. */
  const read = async (): Promise<{ text: string; held: LockRecord } | undefined> => {
    let text: string;
    let modified: number;
    try {
      [text, modified] = await Promise.all([readFile(lockFile, 'utf8'), stat(lockFile).then((s) => s.mtimeMs)]);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const held = JSON.parse(text) as LockRecord;
      if (typeof held.owner === 'string' && typeof held.expiresAt === 'number') return { text, held };
    } catch {}
    return { text, held: { owner: '', host: '', pid: 0, expiresAt: modified + leaseMs } };
  };
  return {
    async take() {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (await write(true)) {
          heldHere.add(owner);
          return true;
        }
        const found = await read();
        if (!found) continue;
        const why = staleness(found.held, Date.now());
        if (!why) return false;
        const marker = `${lockFile}.${createHash('sha256').update(found.text).digest('hex').slice(0, 16)}.taken`;
        if (!(await writeWhole(marker, async (put) => void (await put(owner)), { exclusive: true }))) return false;
        markers.push(marker);
        await write(false);
        heldHere.add(owner);
        const { host, pid } = found.held;
        log(
          `[knowledge] the sync lock ${lockFile} of pid ${pid} on ${host || 'an unknown host'} was taken over: ${why}`,
        );
        return true;
      }
      return false;
    },
    async renew() {
      if ((await read())?.held.owner !== owner) return false;
      await write(false);
      return true;
    },
    async release() {
      heldHere.delete(owner);
      if ((await read())?.held.owner === owner) await rm(lockFile, { force: true });
      await Promise.all(markers.map((marker) => rm(marker, { force: true })));
    },
  };
}
