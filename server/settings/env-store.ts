import type { StoreSettings } from '../knowledge-store/knowledge-store.ts';
import { type Env, readInteger } from './env-values.ts';

/** The one data folder when `DATA_DIR` is unset: `./data`, beside the server's working directory (git ignores it). */
export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_KNOWLEDGE_REFRESH_HOURS = 24;

/** Where the server keeps what lasts, and how often the site's pages are synced again. */
export interface StoreConfig extends StoreSettings {
  /** `KNOWLEDGE_REFRESH_HOURS`: a sync older than this is made again, at start or while running. */
  refreshHours: number;
}

/** `DATA_DIR`, `DATABASE_URL` and `KNOWLEDGE_REFRESH_HOURS`. */
export function readStoreEnv(env: Env, problems: string[]): StoreConfig {
  const config: StoreConfig = {
    dataDir: env.DATA_DIR?.trim() || DEFAULT_DATA_DIR,
    refreshHours: readInteger(env, 'KNOWLEDGE_REFRESH_HOURS', DEFAULT_KNOWLEDGE_REFRESH_HOURS, 1, 24 * 365, problems),
  };
  const databaseUrl = env.DATABASE_URL?.trim();
  if (databaseUrl) {
    const protocol = URL.parse(databaseUrl)?.protocol;
    // The value holds a password: it is never repeated.
    if (protocol === 'postgres:' || protocol === 'postgresql:') config.databaseUrl = databaseUrl;
    else
      problems.push(
        'DATABASE_URL must be a postgres:// URL such as postgres://user:password@db.example:5432/assistant',
      );
  }
  return config;
}
