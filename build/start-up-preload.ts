import type { Plugin } from 'vite';
import { type ChunkLike, startUpFileNames } from './size-budget.ts';

/**
 * Writes a `modulepreload` link into the page for every start-up chunk that the entry imports dynamically (src/start.ts
 * evaluates them one task after another) and those chunks' own imports: without them, each would be requested only
 * when the one before had run, a round trip each on the critical path.
 */
export function startUpPreload(): Plugin {
  let base = '/';
  return {
    name: 'start-up-preload',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle, chunk }) {
        if (!bundle || !chunk) return [];
        const staticOnes = new Set([chunk.fileName, ...chunk.imports]);
        return startUpFileNames(bundle as Record<string, ChunkLike>)
          .filter((fileName) => !staticOnes.has(fileName))
          .map((fileName) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${fileName}` },
            injectTo: 'head' as const,
          }));
      },
    },
  };
}
