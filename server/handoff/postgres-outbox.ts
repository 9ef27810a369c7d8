import pg from 'pg';
import { describeDatabase, type Migration, readMigrations, schemaOnce } from '../sql-migrations.ts';
import { type Channel, HANDOFF_MIGRATIONS_DIR, type Outbox, type OutboxEntry } from './outbox-types.ts';

/** The migration's advisory lock key (`AIHO`, AI handoff outbox). */
const MIGRATION_LOCK = 0x4149484f;

interface Row {
  id: string;
  created_at: string;
  attempts: number;
  next_at: string;
  pending: Channel[];
  message: OutboxEntry['message'];
}
const COLUMNS = 'id, created_at, attempts, next_at, pending, message';
const entryOf = (row: Row): OutboxEntry => ({
  id: row.id,
  createdAt: Number(row.created_at),
  attempts: row.attempts,
  nextAt: Number(row.next_at),
  pending: row.pending,
  message: row.message,
});

/**
 * The outbox shared by replicas: PostgreSQL. A due row is claimed in one statement (`FOR UPDATE SKIP LOCKED`, then a
 * lease in `claimed_until`): two replicas polling at once never take the same message, and a replica that dies holding
 * one gives it up when the lease ends.
 */
export class PostgresOutbox implements Outbox {
  readonly home: string;
  private readonly pool: pg.Pool;
  /** Creates or migrates the tables once; every query waits for it. */
  private readonly ready: () => Promise<void>;

  constructor(
    url: string,
    log: (line: string) => void,
    migrations: Migration[] = readMigrations(HANDOFF_MIGRATIONS_DIR),
  ) {
    this.home = describeDatabase(url);
    this.pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000 });
    this.pool.on('error', (error) => log(`[handoff] ${this.home}: ${error.message}`));
    this.ready = schemaOnce(this.pool, {
      migrations,
      lock: MIGRATION_LOCK,
      table: 'handoff_schema',
      newer: (message) => new Error(`the handoff outbox in ${this.home} ${message}`),
    });
  }

  async put(entry: OutboxEntry): Promise<void> {
    await this.query(`INSERT INTO handoff_outbox (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
      entry.id,
      entry.createdAt,
      entry.attempts,
      entry.nextAt,
      entry.pending,
      JSON.stringify(entry.message),
    ]);
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    const { rows } = await this.query<Row>(
      `UPDATE handoff_outbox SET claimed_until = $2 WHERE id IN (
         SELECT id FROM handoff_outbox WHERE next_at <= $1 AND claimed_until <= $1
         ORDER BY next_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [now, now + leaseMs, limit],
    );
    return rows.map(entryOf);
  }

  async update(entry: OutboxEntry): Promise<void> {
    await this.query(
      'UPDATE handoff_outbox SET attempts = $2, next_at = $3, pending = $4, claimed_until = 0 WHERE id = $1',
      [entry.id, entry.attempts, entry.nextAt, entry.pending],
    );
  }

  async remove(id: string): Promise<void> {
    await this.query('DELETE FROM handoff_outbox WHERE id = $1', [id]);
  }

  async setAside(entry: OutboxEntry): Promise<string> {
    await this.query(
      `WITH gone AS (DELETE FROM handoff_outbox WHERE id = $1 RETURNING id, created_at, pending, message)
       INSERT INTO handoff_undeliverable (id, created_at, set_aside_at, pending, message)
       SELECT id, created_at, $2, pending, message FROM gone ON CONFLICT (id) DO NOTHING`,
      [entry.id, Date.now()],
    );
    return `the handoff_undeliverable table of ${this.home}`;
  }

  async size(): Promise<number> {
    const { rows } = await this.query<{ n: string }>('SELECT count(*) AS n FROM handoff_outbox', []);
    return Number(rows[0].n);
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    await this.ready();
    return this.pool.query<R>(sql, values);
  }
}
