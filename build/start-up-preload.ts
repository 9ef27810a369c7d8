import type { Plugin } from 'vite';
import { OWNER_PAGE_FILE } from '../contract/owner.ts';
import { type ChunkLike, startUpFileNames } from './size-budget.ts';

/**
 * The fetch priority of every script the page starts with. The served page is the card, prerendered with its CSS
 * (build/prerender-card.ts): its first paint needs no script, so none competes with the document for a slow phone's
 * bandwidth. At the browser's default, High for module scripts and `modulepreload`, Lighthouse's simulation also
 * counts each script that finished before the first paint as blocking it, and puts their download in front of it.
 */
const START_UP_FETCH_PRIORITY = 'low';

/**
 * Writes a `modulepreload` link into the page for every start-up chunk that the entry imports dynamically (src/start.ts
 * evaluates them one task after another) and those chunks' own imports: without them, each would be requested only
 * when the one before had run, a round trip each on the critical path. Every start-up script tag and link gets
 * {@link START_UP_FETCH_PRIORITY}, Vite's own too.
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
      handler(html, { bundle, chunk, path }) {
        // The owner's page is no visitor's start-up.
        if (!bundle || !chunk || path === OWNER_PAGE_FILE) return html;
        // Vite's own tags: the entry's script, and a `modulepreload` link for each of its static imports.
        const viteTags = [
          `<script type="module" crossorigin src="${base}${chunk.fileName}">`,
          ...chunk.imports.map((fileName) => `<link rel="modulepreload" crossorigin href="${base}${fileName}">`),
        ];
        let page = html;
        for (const tag of viteTags) {
          if (!page.includes(tag)) throw new Error(`The page has no ${tag} to give a fetch priority`);
          page = page.replace(tag, tag.replace(/^<(script|link) /, `<$1 fetchpriority="${START_UP_FETCH_PRIORITY}" `));
        }
        const staticOnes = new Set([chunk.fileName, ...chunk.imports]);
        const links = startUpFileNames(bundle as Record<string, ChunkLike>)
          .filter((fileName) => !staticOnes.has(fileName))
          .map((fileName) => ({
            tag: 'link',
            attrs: {
              rel: 'modulepreload',
              crossorigin: true,
              fetchpriority: START_UP_FETCH_PRIORITY,
              href: `${base}${fileName}`,
            },
            injectTo: 'head' as const,
          }));
        return { html: page, tags: links };
      },
    },
  };
}
