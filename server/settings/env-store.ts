import {
  DEFAULT_INDEX_TEXT_MILLIONS,
  type IndexBudget,
  indexBudgetFor,
  type StoreSettings,
} from '../knowledge/knowledge.ts';
import { type Env, readInteger } from './env-values.ts';

/** The one data folder when `DATA_DIR` is unset: `./data`, beside the server's working directory (git ignores it). */
export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_KNOWLEDGE_REFRESH_HOURS = 24;
/** 1,000 million characters: an index of about 6 GB, past any server this is made for. */
const MAX_INDEX_TEXT_MILLIONS = 1000;

/** Where the server keeps what lasts, and how often the site's pages are synced again. */
export interface StoreConfig extends StoreSettings {
  /** `KNOWLEDGE_REFRESH_HOURS`: a sync older than this is made again, at start or while running. */
  refreshHours: number;
  /** `KNOWLEDGE_INDEX_TEXT`: the millions of characters of text the index may hold, and its passages and terms with it. */
  indexBudget: IndexBudget;
}

/** `DATA_DIR`, `DATABASE_URL`, `KNOWLEDGE_REFRESH_HOURS` and `KNOWLEDGE_INDEX_TEXT`. */
export function readStoreEnv(env: Env, problems: string[]): StoreConfig {
  const config: StoreConfig = {
    dataDir: env.DATA_DIR?.trim() || DEFAULT_DATA_DIR,
    refreshHours: readInteger(env, 'KNOWLEDGE_REFRESH_HOURS', DEFAULT_KNOWLEDGE_REFRESH_HOURS, 1, 24 * 365, problems),
    indexBudget: indexBudgetFor(
      readInteger(env, 'KNOWLEDGE_INDEX_TEXT', DEFAULT_INDEX_TEXT_MILLIONS, 1, MAX_INDEX_TEXT_MILLIONS, problems),
    ),
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
