import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

// A PostgreSQL home's schema, as numbered plain SQL files (`001-knowledge.sql`, ...): each runs once, in order, and
// the schema's version is the number of the last. The knowledge store and the handoff's outbox each keep a folder.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations, in order of their numbers. */
export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d+-[\w-]+\.sql$/.test(name))
    .map((name) => ({ version: Number.parseInt(name, 10), name, sql: readFileSync(`${dir}/${name}`, 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/** The database of a `postgres://` address, for log lines: its host and name, never its user or password. */
export function describeDatabase(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `PostgreSQL at ${parsed.host}${parsed.pathname}` : 'PostgreSQL';
}

/**
 * Brings a schema up to its latest migration, inside the caller's transaction: under an advisory lock (replicas
 * started together: one migrates, the others wait and then find nothing to do), its version kept in `table`. A
 * database written by a newer version is refused with `newer` (what the schema is, for the message).
 */
export interface SchemaOptions {
  migrations: Migration[];
  /** The advisory lock's key: a fixed number of the caller's own. */
  lock: number;
  /** The table that keeps the schema's version. */
  table: string;
  newer: (message: string) => Error;
}

export async function migrateSchema(
  client: pg.ClientBase,
  { migrations, lock, table, newer }: SchemaOptions,
): Promise<void> {
  const latest = migrations.at(-1)?.version ?? 0;
  await client.query('SELECT pg_advisory_xact_lock($1)', [lock]);
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (version integer NOT NULL)`);
  const { rows } = await client.query(`SELECT max(version) AS version FROM ${table}`);
  const version = (rows[0].version as number | null) ?? 0;
  if (version > latest) {
    throw newer(
      `was written by a newer version (schema ${version}; this server knows up to ${latest}): upgrade the server`,
    );
  }
  for (const migration of migrations.filter((m) => m.version > version)) await client.query(migration.sql);
  if (version < latest) {
    await client.query(`DELETE FROM ${table}`);
    await client.query(`INSERT INTO ${table} (version) VALUES ($1)`, [latest]);
  }
}

/** Runs `work` in one transaction opened with `begin` on a connection of the pool, and commits or rolls it back. */
export async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error as Error;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    // A connection that failed may be broken: the pool drops it rather than lend it again.
    client.release(failure);
  }
}

/**
 * A `ready()` for a home on PostgreSQL: its first call brings the schema up (`migrateSchema`, in a transaction), the
 * others wait for that; a failure (the database is down) is tried again by the next call.
 */
export function schemaOnce(pool: pg.Pool, options: SchemaOptions): () => Promise<void> {
  let schema: Promise<void> | undefined;
  return () => {
    schema ??= inTransaction(pool, 'BEGIN', (client) => migrateSchema(client, options)).catch((error: unknown) => {
      schema = undefined;
      throw error;
    });
    return schema;
  };
}
