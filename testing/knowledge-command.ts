import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { StoreSettings } from '../server/knowledge/knowledge.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The folder of this run's bundle of `npm run knowledge` (server/cli/knowledge.ts as `knowledge.js`), of the
     * library's workers and of the tests' lock holder and handoff process (testing/server-build-setup.ts).
     */
    knowledgeBundle: string;
  }
}

/**
 * The command line of a process from this run's bundle of its source, the same code as tsx runs: `npm run knowledge`,
 * or a test's process that holds the sync lock or serves the handoff.
 */
export const bundledProcess = (name: 'knowledge' | 'hold-sync-lock' | 'handoff-process') => [
  process.execPath,
  join(inject('knowledgeBundle'), `${name}.js`),
];

/**
 * `npm run knowledge -- <args>` as a process of its own, with the site's file in `configDir` and the store's settings
 * in its environment: the command itself, or (`npm`) through `npm run -s` and tsx, as the docs write it for `--json`.
 */
export function knowledgeCommand(
  configDir: string,
  args: string[],
  { dataDir, databaseUrl }: Partial<StoreSettings>,
  { npm = false } = {},
) {
  const [command, ...prefix] = npm ? ['npm', 'run', '-s', 'knowledge', '--'] : bundledProcess('knowledge');
  const child = spawn(command, [...prefix, ...args], {
    env: {
      ...process.env,
      ASSISTANT_CONFIG: join(configDir, 'assistant.config.yaml'),
      ...(dataDir ? { DATA_DIR: dataDir } : {}),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const done = once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr }));
  return { child, done };
}
