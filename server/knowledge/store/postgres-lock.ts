import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import type { Lease } from './sync-lease.ts';

/**
 * The PostgreSQL home's lease: one row naming its holder, the session it holds it from and when it ends, renewed on
 * that session. It is stale when its time has run out (a holder whose host vanished) or its session is gone (a killed
 * server, at once); a stale one is taken over in the same statement that checks it, so only one process can.
 */
export function postgresLease(client: pg.Client, leaseMs: number, home: string, log: (line: string) => void): Lease {
  const owner = randomUUID();
  return {
    async take() {
      const { rows } = await client.query(
        `WITH old AS (SELECT holder, expires_at < now() AS expired FROM knowledge_sync_lock)
         INSERT INTO knowledge_sync_lock AS l (one, owner, holder, backend_pid, expires_at)
         VALUES (true, $1, $2, pg_backend_pid(), now() + $3 * interval '1 millisecond')
         ON CONFLICT (one) DO UPDATE SET owner = excluded.owner, holder = excluded.holder,
           backend_pid = excluded.backend_pid, expires_at = excluded.expires_at
         WHERE l.expires_at < now() OR NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = l.backend_pid)
         RETURNING (SELECT holder FROM old) AS previous, (SELECT expired FROM old) AS expired`,
        [owner, `pid ${process.pid} on ${hostname()}`, leaseMs],
      );
      if (rows.length === 0) return false;
      const [{ previous, expired }] = rows;
      if (previous !== null) {
        const why = expired ? 'its lease ran out' : 'its session is gone';
        log(`[knowledge] the sync lock of ${home} held by ${previous} was taken over: ${why}`);
      }
      return true;
    },
    async renew() {
      const { rowCount } = await client.query(
        `UPDATE knowledge_sync_lock SET expires_at = now() + $2 * interval '1 millisecond' WHERE owner = $1`,
        [owner, leaseMs],
      );
      return rowCount === 1;
    },
    async release() {
      await client.query('DELETE FROM knowledge_sync_lock WHERE owner = $1', [owner]);
    },
  };
}
