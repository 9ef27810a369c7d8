import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * One of the library's worker threads, by the name of its entry beside this module: the TypeScript source under Vitest
 * and the dev server (loaded through tsx's loader, a development dependency), `<name>.js` beside the bundle that
 * `npm run build` writes (see build/server-worker.ts). A path, not `new URL(…, import.meta.url)`, so that the bundler
 * leaves it alone. Only the server's side imports this module, so that the bundle keeps it in main.js, beside the
 * workers: a worker importing it would move it into a chunk of its own under assets/, where no worker is.
 */
export function startWorker(name: 'html-worker' | 'index-worker', options: WorkerOptions): Worker {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) return new Worker(join(dirname(here), `${name}.js`), options);
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
