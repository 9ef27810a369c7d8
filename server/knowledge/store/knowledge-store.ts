// The knowledge store's one entry: the rest of the server imports this file. It chooses the store's home once, at
// start-up: PostgreSQL when `DATABASE_URL` is set (shared by replicas), else files under `DATA_DIR` (no service).
import { FileStore } from './file-store.ts';
import { PostgresStore } from './postgres-store.ts';
import type { KnowledgeStore } from './store-types.ts';

export type {
  KnowledgeSnapshot,
  KnowledgeStore,
  SkippedAddress,
  SourceState,
  StoredPage,
  StoredPassage,
  SyncChanges,
} from './store-types.ts';
export { applyChanges, StoreError } from './store-types.ts';

export interface StoreSettings {
  /** `DATA_DIR`: the embedded store lives in its `knowledge/` folder. */
  dataDir: string;
  /** `DATABASE_URL`: a `postgres://` address; it wins over `dataDir`. */
  databaseUrl?: string;
  /** How long the sync lock lasts without its holder's renewal (`SYNC_LEASE_MS`; shorter in tests). */
  syncLeaseMs?: number;
}

/** The store of these settings; nothing is opened until it is first read. */
export function openKnowledgeStore(settings: StoreSettings, log: (line: string) => void): KnowledgeStore {
  const { databaseUrl, dataDir, syncLeaseMs } = settings;
  return databaseUrl
    ? new PostgresStore(databaseUrl, log, undefined, syncLeaseMs)
    : new FileStore(dataDir, log, syncLeaseMs);
}
