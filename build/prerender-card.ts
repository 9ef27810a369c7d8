import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Plugin } from 'vite';
import { OWNER_PAGE_FILE } from '../contract/owner.ts';
import { DEFAULT_PAGE_SETTINGS } from '../contract/page-settings.ts';
import { CATALOGUE_ELEMENT_ID } from '../locales/catalogue.ts';
import { CATALOGUES } from '../locales/catalogues.ts';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language, pageFileName, textDirection } from '../locales/languages.ts';
import { fillPages, pageTemplatesDir } from '../server/pages/pages.ts';

const RENDER_SCRIPT = fileURLToPath(new URL('./render-card.ts', import.meta.url));

/** The idle card's HTML in every language, rendered by build/render-card.ts in a Node process of its own. */
async function renderCards(): Promise<Record<Language, string>> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', RENDER_SCRIPT], {
    env: { ...process.env, NODE_ENV: 'production' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<Language, string>;
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
 * index.html in `language`: `<html lang dir>` (screen readers pronounce by it; the layout mirrors by it) and the
 * language's catalogue for the app to read (src/text.ts), as JSON that no `</script>` can end early.
 */
export function localizePage(html: string, language: Language): string {
  const catalogue = CATALOGUES[language];
  const json = JSON.stringify(catalogue).replace(/</g, '\\u003c');
  const localized = html
    .replace(/<html lang="[^"]*">/, `<html lang="${language}" dir="${textDirection(language)}">`)
    .replace('</head>', `<script type="application/json" id="${CATALOGUE_ELEMENT_ID}">${json}</script></head>`);
  if (!localized.includes(`id="${CATALOGUE_ELEMENT_ID}"`) || !localized.includes(`lang="${language}"`)) {
    throw new Error('index.html has no <html lang> or no </head> to localize');
  }
  return localized;
}

/**
 * Renders the idle card (src/prerender-card.tsx) into the built index.html, from the same components the client then
 * hydrates: the page shows the card, styled, before any JavaScript has run. Once per language: `index.html` is
 * English, `index.<language>.html` the others (locales/languages.ts `pageFileName`), each with its own catalogue.
 * Each page is written finished, with the language's own title, as a static host serves it (a direct-mode build then
 * bakes the site's settings in: server/vite/vite-plugin.ts). The templates, with the title still a sentinel, go beside the
 * client folder (`pageTemplatesDir`), where no static host serves them: the Node server fills them with the site's
 * settings at start-up (server/pages/page-html.ts). The dev server's page has no card (server/vite/vite-plugin.ts
 * localizes it).
 */
export function prerenderCard(): Plugin {
  const templates = new Map<Language, string>();
  const pages = new Map<Language, string>();
  return {
    name: 'prerender-card',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html, { path }) {
        // The owner's page has no card.
        if (path === OWNER_PAGE_FILE) return html;
        if (!html.includes(ROOT_ELEMENT)) throw new Error(`index.html has no ${ROOT_ELEMENT} to render the card into`);
        const cards = await renderCards();
        const styled = html.replace('</head>', `<style>${systemDarkCss(cards.en)}</style></head>`);
        for (const language of LANGUAGES) {
          const page = localizePage(styled, language).replace(ROOT_ELEMENT, `<div id="root">${cards[language]}</div>`);
          templates.set(language, page);
        }
        const finished = fillPages(Object.fromEntries(templates) as Record<Language, string>, {
          page: DEFAULT_PAGE_SETTINGS,
        });
        for (const language of LANGUAGES) pages.set(language, finished[language]);
        return pages.get(DEFAULT_LANGUAGE);
      },
    },
    // After Vite's own HTML plugin, which runs the hook above while it writes index.html.
    generateBundle: {
      order: 'post',
      handler() {
        for (const [language, source] of pages) {
          if (language !== DEFAULT_LANGUAGE) this.emitFile({ type: 'asset', fileName: pageFileName(language), source });
        }
        pages.clear();
      },
    },
    async writeBundle(output) {
      if (!output.dir || templates.size === 0) return;
      const dir = pageTemplatesDir(output.dir);
      await mkdir(dir, { recursive: true });
      await Promise.all([...templates].map(([language, html]) => writeFile(join(dir, pageFileName(language)), html)));
      templates.clear();
    },
  };
}
