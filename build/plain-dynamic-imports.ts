import type { Plugin } from 'vite';

/** The module Vite wraps every dynamic `import()` of a client build in. */
export const PRELOAD_HELPER_ID = '\0vite/preload-helper.js';

/**
 * Replaces Vite's preload helper with a plain call of the import. The helper preloads a lazy chunk's own imports in
 * parallel with it; the card's lazy chunks (the openai client, the Markdown renderer, the embedded card) import only
 * start-up chunks (the entry, the stages src/start.ts evaluates and what those import, all preloaded by the page and
 * loaded by the time a lazy chunk is asked for: src/main.tsx, which asks, is the last stage), so their preload lists
 * are empty (`modulePreload.resolveDependencies` in
 * vite.config.ts) and the helper would only add about 700 B of gzip to the start-up code. Its other job, a
 * `vite:preloadError` event, the card does not use: each loader handles a failed download itself.
 */
export function plainDynamicImports(): Plugin {
  return {
    name: 'plain-dynamic-imports',
    apply: 'build',
    enforce: 'pre',
    load(id) {
      if (id === PRELOAD_HELPER_ID) return 'export const __vitePreload = (load) => load();';
    },
  };
}
