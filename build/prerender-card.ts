import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Plugin } from 'vite';

const RENDER_SCRIPT = fileURLToPath(new URL('./render-card.ts', import.meta.url));

/** The idle card's HTML, rendered by build/render-card.ts in a Node process of its own. */
async function renderCard(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', RENDER_SCRIPT], {
    env: { ...process.env, NODE_ENV: 'production' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** Where the card goes in index.html. */
export const ROOT_ELEMENT = '<div id="root"></div>';

/** Chakra's rule that sets the dark values of the theme's tokens, for pages with its `dark` class. */
const DARK_TOKENS = /\.dark,\.dark \.chakra-theme:not\(\.light\)\{([^}]*)\}/;

/**
 * The dark token values again, for a system that prefers dark, before any script has run: src/color-scheme.ts then
 * puts `dark` or, when the embed forces the light scheme, `light` on the page.
 */
export function systemDarkCss(cardHtml: string): string {
  const dark = DARK_TOKENS.exec(cardHtml);
  if (!dark) throw new Error("The prerendered card has no dark token values: has Chakra's `dark` condition changed?");
  return `@media (prefers-color-scheme: dark){:root:not(.light){color-scheme:dark;${dark[1]}}}`;
}

/**
 * Renders the idle card (src/prerender-card.tsx) into the built index.html, from the same components the client then
 * hydrates: the page shows the card, styled, before any JavaScript has run.
 */
export function prerenderCard(): Plugin {
  return {
    name: 'prerender-card',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html) {
        if (!html.includes(ROOT_ELEMENT)) throw new Error(`index.html has no ${ROOT_ELEMENT} to render the card into`);
        const card = await renderCard();
        return html
          .replace('</head>', `<style>${systemDarkCss(card)}</style></head>`)
          .replace(ROOT_ELEMENT, `<div id="root">${card}</div>`);
      },
    },
  };
}
