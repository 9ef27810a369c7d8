import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The PostgreSQL home's schema, as numbered plain SQL files (`001-knowledge.sql`, ...): each runs once, in order, and
 * the store's version is the number of the last. The production build copies them beside its server bundle
 * (`build/sql-migrations.ts`), where this same address then points.
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations, in order of their numbers. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d+-[\w-]+\.sql$/.test(name))
    .map((name) => ({ version: Number.parseInt(name, 10), name, sql: readFileSync(`${dir}/${name}`, 'utf8') }))
    .sort((a, b) => a.version - b.version);
}
