import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * One of the library's worker threads, by the name of its entry beside this module: the TypeScript source under the
 * dev server and `npm run knowledge` (loaded through tsx's loader, a development dependency; start-worker.test.ts),
 * `<name>.js` beside the bundle that `npm run build` writes (see build/server-worker.ts), and under Vitest the test
 * run's bundle ({@link startWorkersFrom}). A path, not `new URL(…, import.meta.url)`, so that the bundler leaves it
 * alone. Only the server's side imports this module, so that the bundle keeps it in main.js, beside the
 * workers: a worker importing it would move it into a chunk of its own under assets/, where no worker is.
 */
export function startWorker(name: 'html-worker' | 'index-worker', options: WorkerOptions): Worker {
  const here = fileURLToPath(import.meta.url);
  const built = here.endsWith('.ts') ? bundledWorkers : dirname(here);
  if (built) return new Worker(join(built, `${name}.js`), options);
  const entry = JSON.stringify(join(dirname(here), `${name}.ts`));
  // tsx's ES module API, beside the CommonJS one that require finds (import.meta.resolve would find it directly, but
  // it makes Vite load its configuration, which imports this file, twice as slowly).
  const tsx = JSON.stringify(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  );
  return new Worker(`import(${tsx}).then(({ tsImport }) => tsImport(${entry}, ${entry}))`, { ...options, eval: true });
}

/** Where the source's workers are started from instead of through tsx: see {@link startWorkersFrom}. */
let bundledWorkers: string | undefined;

/**
 * For the tests: the workers started from `dir`, the test run's bundle of their source (`html-worker.js` and
 * `index-worker.js`, testing/server-build-setup.ts), as a build starts them. tsx compiling a worker's modules again
 * took 0.8 s of CPU a start, and knowledge-sync.test.ts alone starts 66.
 */
export function startWorkersFrom(dir: string | undefined): void {
  bundledWorkers = dir;
}
