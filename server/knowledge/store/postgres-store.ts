import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describeDatabase, inTransaction, type Migration, readMigrations, schemaOnce } from '../../sql-migrations.ts';
import { postgresLease } from './postgres-lock.ts';
import {
  type KnowledgeSnapshot,
  type KnowledgeStore,
  type StoredPage,
  StoreError,
  type SyncChanges,
} from './store-types.ts';
import { SYNC_LEASE_MS, underLease } from './sync-lease.ts';

/** The migration's advisory lock key (any fixed number; this spells `AIKM`, AI knowledge migrate). */
const MIGRATION_LOCK = 0x41494b4d;

/** Rows written per statement: one JSON parameter each, so a 50,000-page sync is some fifty statements. */
const BATCH = 1000;

/**
 * The store's migrations (`001-knowledge.sql`, ...). The production build copies them beside its server bundle
 * (`build/sql-migrations.ts`), where this same address then points.
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

const PAGE_COLUMNS = `source text, address text, url text, title text, language text, etag text, "lastModified" text,
  "textHash" text, "mtimeMs" double precision, "fetchedAt" double precision, "changedAt" double precision,
  passages jsonb`;

/**
 * The shared home: PostgreSQL through `pg`. The server creates and migrates its own tables (see `migrations.ts`), and
 * refuses a database whose schema is newer than it knows. A commit is one transaction. The sync lock is a lease held
 * and renewed on a connection of its own (see `postgresLease`).
 */
export class PostgresStore implements KnowledgeStore {
  readonly home: string;
  private readonly pool: pg.Pool;
  /** Creates or migrates the schema once; every query waits for it. */
  private readonly ready: () => Promise<void>;

  constructor(
    private readonly url: string,
    private readonly log: (line: string) => void,
    migrations: Migration[] = readMigrations(MIGRATIONS_DIR),
    private readonly leaseMs = SYNC_LEASE_MS,
  ) {
    this.home = describeDatabase(url);
    this.pool = new pg.Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 10_000 });
    // An idle connection that breaks (the server restarts) must not crash the process; the next query reconnects.
    this.pool.on('error', (error) => log(`[knowledge] ${this.home}: ${error.message}`));
    this.ready = schemaOnce(this.pool, {
      migrations,
      lock: MIGRATION_LOCK,
      table: 'knowledge_schema',
      newer: (message) => new StoreError(`the knowledge store in ${this.home} ${message}`),
    });
  }

  async generation(): Promise<string> {
    await this.ready();
    const { rows } = await this.pool.query('SELECT coalesce(max(generation), 0)::text AS g FROM knowledge_syncs');
    return rows[0].g as string;
  }

  async load(): Promise<KnowledgeSnapshot> {
    await this.ready();
    return inTransaction(this.pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
      const generation = await client.query('SELECT coalesce(max(generation), 0)::text AS g FROM knowledge_syncs');
      const sources = await client.query(
        'SELECT source, state, synced_at, succeeded_at FROM knowledge_sources ORDER BY source',
      );
      const pages = await client.query(
        `SELECT source, address, url, title, language, etag, last_modified, text_hash, mtime_ms, fetched_at,
           changed_at, passages
         FROM knowledge_pages ORDER BY source, address`,
      );
      const skipped = await client.query('SELECT source, url, reason FROM knowledge_skipped ORDER BY source, url');
      return {
        generation: generation.rows[0].g as string,
        sources: sources.rows.map((row) => ({
          source: row.source,
          state: row.state,
          syncedAt: (row.synced_at as Date).getTime(),
          ...(row.succeeded_at === null ? {} : { succeededAt: (row.succeeded_at as Date).getTime() }),
        })),
        pages: pages.rows.map(
          (row): StoredPage => ({
            source: row.source,
            address: row.address,
            url: row.url,
            title: row.title,
            language: row.language,
            ...(row.etag === null ? {} : { etag: row.etag }),
            ...(row.last_modified === null ? {} : { lastModified: row.last_modified }),
            textHash: row.text_hash,
            ...(row.mtime_ms === null ? {} : { mtimeMs: row.mtime_ms }),
            fetchedAt: (row.fetched_at as Date).getTime(),
            changedAt: (row.changed_at as Date).getTime(),
            passages: row.passages,
          }),
        ),
        skipped: skipped.rows.map((row) => ({ source: row.source, url: row.url, reason: row.reason })),
      };
    });
  }

  async commit(changes: SyncChanges): Promise<void> {
    await this.ready();
    await inTransaction(this.pool, 'BEGIN', async (client) => {
      const synced = changes.sources.map((state) => state.source);
      const gone = [...changes.dropSources];
      for (const table of ['knowledge_pages', 'knowledge_skipped', 'knowledge_sources']) {
        await client.query(`DELETE FROM ${table} WHERE source = ANY($1)`, [gone]);
      }
      await client.query('DELETE FROM knowledge_skipped WHERE source = ANY($1)', [synced]);
      for (let at = 0; at < changes.remove.length; at += BATCH) {
        await client.query(
          `DELETE FROM knowledge_pages p USING jsonb_to_recordset($1::jsonb) AS r(source text, address text)
           WHERE p.source = r.source AND p.address = r.address`,
          [JSON.stringify(changes.remove.slice(at, at + BATCH))],
        );
      }
      for (let at = 0; at < changes.put.length; at += BATCH) {
        await client.query(
          `INSERT INTO knowledge_pages AS p (source, address, url, title, language, etag, last_modified, text_hash,
             mtime_ms, fetched_at, changed_at, passages)
           SELECT source, address, url, title, language, etag, "lastModified", "textHash", "mtimeMs",
             to_timestamp("fetchedAt" / 1000.0), to_timestamp("changedAt" / 1000.0), passages
           FROM jsonb_to_recordset($1::jsonb) AS r(${PAGE_COLUMNS})
           ON CONFLICT (source, address) DO UPDATE SET url = excluded.url, title = excluded.title, language = excluded.language,
             etag = excluded.etag, last_modified = excluded.last_modified, text_hash = excluded.text_hash,
             mtime_ms = excluded.mtime_ms, fetched_at = excluded.fetched_at, changed_at = excluded.changed_at,
             passages = excluded.passages`,
          [JSON.stringify(changes.put.slice(at, at + BATCH))],
        );
      }
      for (let at = 0; at < changes.touch.length; at += BATCH) {
        await client.query(
          `UPDATE knowledge_pages p SET etag = r.etag, last_modified = r."lastModified", mtime_ms = r."mtimeMs",
             fetched_at = to_timestamp(r."fetchedAt" / 1000.0)
           FROM jsonb_to_recordset($1::jsonb) AS r(${PAGE_COLUMNS})
           WHERE p.source = r.source AND p.address = r.address`,
          [JSON.stringify(changes.touch.slice(at, at + BATCH))],
        );
      }
      for (let at = 0; at < changes.skipped.length; at += BATCH) {
        await client.query(
          `INSERT INTO knowledge_skipped (source, url, reason)
           SELECT source, url, reason FROM jsonb_to_recordset($1::jsonb) AS r(source text, url text, reason text)
           ON CONFLICT (source, url) DO UPDATE SET reason = excluded.reason`,
          [JSON.stringify(changes.skipped.slice(at, at + BATCH))],
        );
      }
      await client.query(
        `INSERT INTO knowledge_sources (source, state, synced_at, succeeded_at)
         SELECT source, state, to_timestamp("syncedAt" / 1000.0), to_timestamp("succeededAt" / 1000.0)
         FROM jsonb_to_recordset($1::jsonb)
           AS r(source text, state text, "syncedAt" double precision, "succeededAt" double precision)
         ON CONFLICT (source) DO UPDATE SET state = excluded.state, synced_at = excluded.synced_at,
           succeeded_at = excluded.succeeded_at`,
        [JSON.stringify(changes.sources)],
      );
      await client.query('INSERT INTO knowledge_syncs DEFAULT VALUES');
    });
  }

  async loadIndex(): Promise<{ fingerprint: string; data: string } | undefined> {
    await this.ready();
    const { rows } = await this.pool.query('SELECT fingerprint, data FROM knowledge_index');
    return rows[0];
  }

  async saveIndex(fingerprint: string, data: string): Promise<void> {
    await this.ready();
    await this.pool.query(
      `INSERT INTO knowledge_index (one, fingerprint, data) VALUES (true, $1, $2)
       ON CONFLICT (one) DO UPDATE SET fingerprint = excluded.fingerprint, data = excluded.data`,
      [fingerprint, data],
    );
  }

  async withSyncLock<T>(work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
    await this.ready();
    const client = new pg.Client({ connectionString: this.url });
    // Losing this connection loses the lock; the sync's own commit (on the pool) still stands or fails on its own.
    client.on('error', () => {});
    await client.connect();
    try {
      return await underLease(
        postgresLease(client, this.leaseMs, this.home, this.log),
        this.leaseMs,
        this.home,
        this.log,
        work,
      );
    } finally {
      await client.end().catch(() => {});
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
