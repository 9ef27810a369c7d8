import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const WORKER_ENTRY = fileURLToPath(new URL('../server/knowledge/html-worker.ts', import.meta.url));

/**
 * The server bundle's worker thread: `vite build --ssr server/main.ts` bundles what main.ts imports, and a worker is
 * started from a file, not imported. This emits server/knowledge/html-worker.ts as `html-worker.js` beside main.js,
 * where server/knowledge/html-extractor.ts looks for it.
 */
export function serverWorker(): Plugin {
  return {
    name: 'server-worker',
    apply: (_config, env) => env.command === 'build' && env.isSsrBuild === true,
    buildStart() {
      this.emitFile({ type: 'chunk', id: WORKER_ENTRY, fileName: 'html-worker.js' });
    },
  };
}
