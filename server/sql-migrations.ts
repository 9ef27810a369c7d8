import { readdirSync, readFileSync } from 'node:fs';

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
