import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

/** The library's workers (see server/knowledge/workers/start-worker.ts), by the name their bundle takes. */
const WORKERS = ['html-worker', 'index-worker'].map((name) => ({
  name,
  entry: fileURLToPath(new URL(`../server/knowledge/workers/${name}.ts`, import.meta.url)),
}));

/**
 * The server bundle's worker threads: `vite build --ssr server/main.ts` bundles what main.ts imports, and a worker is
 * started from a file, not imported. This emits server/knowledge/workers/html-worker.ts as `html-worker.js` (and the index
 * worker likewise) beside main.js, where server/knowledge/workers/start-worker.ts looks for them.
 */
export function serverWorker(): Plugin {
  return {
    name: 'server-worker',
    apply: (_config, env) => env.command === 'build' && env.isSsrBuild === true,
    buildStart() {
      for (const { name, entry } of WORKERS) this.emitFile({ type: 'chunk', id: entry, fileName: `${name}.js` });
    },
  };
}
