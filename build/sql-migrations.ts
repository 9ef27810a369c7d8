import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { HANDOFF_MIGRATIONS_DIR } from '../server/handoff/outbox-types.ts';
import { MIGRATIONS_DIR } from '../server/knowledge/store/postgres-store.ts';

/**
 * Copies the knowledge store's SQL migrations beside the server bundle (`dist/server/migrations/`), and the handoff
 * outbox's (`dist/server/handoff-migrations/`): the server reads them from `./migrations/` and
 * `./handoff-migrations/` next to its own module, which in the build is `dist/server/main.js`.
 */
export function sqlMigrations(): Plugin {
  return {
    name: 'ai-assistant:sql-migrations',
    applyToEnvironment: (environment) => environment.config.consumer === 'server',
    generateBundle() {
      for (const [dir, folder] of [
        [MIGRATIONS_DIR, 'migrations'],
        [HANDOFF_MIGRATIONS_DIR, 'handoff-migrations'],
      ]) {
        for (const name of readdirSync(dir).filter((file) => file.endsWith('.sql'))) {
          this.emitFile({ type: 'asset', fileName: `${folder}/${name}`, source: readFileSync(join(dir, name)) });
        }
      }
    },
  };
}
