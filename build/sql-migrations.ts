import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { MIGRATIONS_DIR } from '../server/knowledge-store/migrations.ts';

/**
 * Copies the knowledge store's SQL migrations beside the server bundle (`dist/server/migrations/`): the server reads
 * them from `./migrations/` next to its own module, which in the build is `dist/server/main.js`.
 */
export function sqlMigrations(): Plugin {
  return {
    name: 'ai-assistant:sql-migrations',
    applyToEnvironment: (environment) => environment.config.consumer === 'server',
    generateBundle() {
      for (const name of readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql'))) {
        this.emitFile({
          type: 'asset',
          fileName: `migrations/${name}`,
          source: readFileSync(join(MIGRATIONS_DIR, name)),
        });
      }
    },
  };
}
