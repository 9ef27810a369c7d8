import type { Plugin } from 'vite';
import { type ChunkLike, startUpFileNames } from './size-budget.ts';

/**
 * The fetch priority of every script the page starts with. The served page is the card, prerendered with its CSS
 * (build/prerender-card.ts): its first paint needs no script, so none competes with the document for a slow phone's
 * bandwidth. At the browser's default, High for module scripts and `modulepreload`, Lighthouse's simulation also
 * counts each script that finished before the first paint as blocking it, and puts their download in front of it.
 */
export const START_UP_FETCH_PRIORITY = 'low';

/**
 * Writes a `modulepreload` link into the page for every start-up chunk that the entry imports dynamically (src/start.ts
 * evaluates them one task after another) and those chunks' own imports: without them, each would be requested only
 * when the one before had run, a round trip each on the critical path. The links and the entry's own script tag get
 * {@link START_UP_FETCH_PRIORITY}.
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
      handler(html, { bundle, chunk }) {
        if (!bundle || !chunk) return html;
        const entryTag = `<script type="module" crossorigin src="${base}${chunk.fileName}">`;
        if (!html.includes(entryTag)) throw new Error(`The page has no ${entryTag} to give a fetch priority`);
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
        const entry = entryTag.replace('<script ', `<script fetchpriority="${START_UP_FETCH_PRIORITY}" `);
        return { html: html.replace(entryTag, entry), tags: links };
      },
    },
  };
}
