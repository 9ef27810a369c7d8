import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreSettings } from '../server/knowledge/knowledge.ts';
import type { PostgresServer } from './postgres-server.ts';

let databases = 0;

/**
 * The knowledge store's two homes, for `describe.each`: each call of `settings` gives a new, empty store (a temporary
 * DATA_DIR, or a new database on the test's PostgreSQL server), which any number of store instances may then open.
 */
export const storeHomes = (postgres: () => PostgresServer): [string, () => Promise<StoreSettings>][] => [
  ['files under DATA_DIR', async () => ({ dataDir: await mkdtemp(join(tmpdir(), 'knowledge-store-')) })],
  [
    'PostgreSQL',
    async () => ({ dataDir: '/nonexistent', databaseUrl: await postgres().createDatabase(`store_${++databases}`) }),
  ],
];
