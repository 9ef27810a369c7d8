import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * One of the library's worker threads, by the name of its entry beside this module: the TypeScript source under Vitest
 * and the dev server (loaded through tsx's loader, a development dependency), `<name>.js` beside the bundle that
 * `npm run build` writes (see build/server-worker.ts). A path, not `new URL(…, import.meta.url)`, so that the bundler
 * leaves it alone.
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

/** The lowest priority a thread can have: 19, nice's. */
const LOWEST_PRIORITY = 19;

/**
 * Gives the calling worker thread the lowest priority, so that the thread serving chat runs first whenever the CPU is
 * short: a sync's extraction and indexing then take only the time chat leaves. On Linux a thread's nice value is its
 * own (`setpriority` on 0 names the calling thread); elsewhere it is the whole process's, so there it stays as it is.
 */
export function runBehindChat() {
  if (process.platform !== 'linux') return;
  try {
    setPriority(LOWEST_PRIORITY);
  } catch {
    // A system that refuses (a container's seccomp policy) keeps the thread at its priority: slower chat, not a fault.
  }
}
