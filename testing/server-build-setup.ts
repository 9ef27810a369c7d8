import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { HANDOFF_MIGRATIONS_DIR } from '../server/handoff/outbox-types.ts';
import { MIGRATIONS_DIR } from '../server/knowledge/store/postgres-store.ts';

const source = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/**
 * `npm run knowledge` (server/cli/knowledge.ts) bundled into `dir` as `npm run build` lays out the server, for the
 * tests that run it as a process (testing/knowledge-command.ts): its workers as `html-worker.js` and `index-worker.js`
 * beside it (server/knowledge/workers/start-worker.ts; every Node test file starts its workers from there too,
 * testing/node-setup.ts), the knowledge store's SQL migrations in `migrations/`
 * (build/sql-migrations.ts), and the two test processes that hold the sync lock and serve the handoff
 * (testing/hold-sync-lock.ts, testing/handoff-process.ts) with the handoff's in `handoff-migrations/`. The packages
 * stay imports, resolved from node_modules as the command resolves them. tsx compiled the server again for each run
 * of the command: 3.3 s of CPU to start.
 */
async function bundleKnowledgeCommand(dir: string) {
  await build({
    entryPoints: {
      knowledge: source('server/cli/knowledge.ts'),
      'html-worker': source('server/knowledge/workers/html-worker.ts'),
      'index-worker': source('server/knowledge/workers/index-worker.ts'),
      'hold-sync-lock': source('testing/hold-sync-lock.ts'),
      'handoff-process': source('testing/handoff-process.ts'),
    },
    outdir: dir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    // A dynamic import stays one (the OpenTelemetry SDK loads only when traces are on), its chunk beside the entries.
    splitting: true,
    logLevel: 'warning',
  });
  // Under node_modules no package.json of the project's says that a .js file is a module.
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
  await cp(MIGRATIONS_DIR, join(dir, 'migrations'), { recursive: true });
  await cp(HANDOFF_MIGRATIONS_DIR, join(dir, 'handoff-migrations'), { recursive: true });
}

/**
 * The Node project's global setup. It names the folder where this run builds the production server once, for every
 * file that runs it (`sharedServerBuild` in testing/production-harness.ts): the build is made only if such a file runs.
 * It bundles the owner's command (above: 0.15 s, 0.2 s of CPU) for every file that runs it. The folders are this
 * run's alone (another run in the same tree makes its own), under node_modules so that the bundles resolve the
 * packages as dist/ does, and are removed at the end.
 */
export default async function setup(project: TestProject) {
  const cache = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
  await mkdir(cache, { recursive: true });
  const run = `${process.pid}-${Date.now()}`;
  const serverBuildDir = `${cache}server-build-${run}`;
  const knowledgeCommandDir = `${cache}knowledge-command-${run}`;
  await bundleKnowledgeCommand(knowledgeCommandDir);
  project.provide('serverBuildDir', serverBuildDir);
  project.provide('knowledgeBundle', knowledgeCommandDir);
  return () =>
    Promise.all([serverBuildDir, knowledgeCommandDir].map((dir) => rm(dir, { recursive: true, force: true })));
}
