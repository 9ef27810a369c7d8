import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { EMBED_ACCENT_SENTINEL, EMBED_LOADER_PATH } from '../../contract/embed.ts';
import {
  ACCENT_VARIABLE,
  DEFAULT_PAGE_SETTINGS,
  PAGE_SETTINGS_ID,
  type PageSettings,
  TITLE_SENTINEL,
} from '../../contract/page-settings.ts';
import { CATALOGUES } from '../../locales/catalogues.ts';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language, pageFileName } from '../../locales/languages.ts';
import type { AccentShades } from '../settings/accent.ts';

/** What a page is filled with: the page's settings, and the accent, which the page receives as CSS. */
export interface PageFill {
  page: PageSettings;
  accent?: AccentShades;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);
}

function isDefault(page: PageSettings): boolean {
  return JSON.stringify(page) === JSON.stringify(DEFAULT_PAGE_SETTINGS);
}

/**
 * The accent on the page's root, with its dark shade where the page is dark: under Chakra's `dark` class, and for a
 * system that prefers dark before any script has run (as build/prerender-card.ts does for the theme's tokens).
 */
function accentCss({ light, dark }: AccentShades): string {
  const v = ACCENT_VARIABLE;
  return `:root{${v}:${light}}:root.dark{${v}:${dark}}@media (prefers-color-scheme:dark){:root:not(.light){${v}:${dark}}}`;
}

/**
 * The page as served: the built index.html (`template`, with the idle card prerendered into it) filled with the site's
 * settings. The title (the site's, or else `defaultTitle`, the language's own) replaces `TITLE_SENTINEL` in the card
 * and the document's `<title>`, HTML-escaped; the accent
 * comes as a `<style>`; the rest of the page's settings as a JSON block (`PAGE_SETTINGS_ID`) that src/main.tsx reads
 * before it renders. JSON is data, not a script: the CSP's `script-src 'self'` stays as it is. With the spec's
 * settings nothing is added, so the page is exactly the built one. Pure: the caller decides when (once, at start-up)
 * and for whom (one page per settings).
 */
export function fillPageHtml(template: string, { page, accent }: PageFill, defaultTitle: string): string {
  const title = escapeHtml(page.title ?? defaultTitle);
  const html = template
    .replaceAll(TITLE_SENTINEL, () => title)
    .replace(/<title>[^<]*<\/title>/, () => `<title>${title}</title>`);
  const additions = [
    accent ? `<style>${accentCss(accent)}</style>` : '',
    isDefault(page)
      ? ''
      : // `<` escaped, so that no text in the settings can close the block.
        `<script type="application/json" id="${PAGE_SETTINGS_ID}">${JSON.stringify(page).replaceAll('<', '\\u003c')}</script>`,
  ].join('');
  // In the head, where the build's page has them read before the card; a page without a head still gets them.
  return html.includes('</head>') ? html.replace('</head>', () => `${additions}</head>`) : html + additions;
}

/** A page (or the loader) ready to serve: its text, and compressed copies when worth it (made once, not per request). */
export interface ServedPage {
  type: string;
  html: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

/** Below this a compressed copy saves less than the extra header costs (as server/precompress.ts). */
const MIN_BYTES = 1024;

export function preparePage(html: string, type = 'text/html; charset=utf-8'): ServedPage {
  const plain = Buffer.from(html, 'utf8');
  if (plain.length < MIN_BYTES) return { type, html: plain };
  return {
    type,
    html: plain,
    br: brotliCompressSync(plain, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
    gzip: gzipSync(plain, { level: constants.Z_BEST_COMPRESSION }),
  };
}

/**
 * The page in every language, filled and compressed once, at start-up: the build writes one template per language
 * (build/prerender-card.ts), with the card already in it. A client without a language's page (one built by hand, as
 * some tests do) serves that language from index.html.
 */
export function preparePages(clientDir: string, fill: PageFill): Record<Language, ServedPage> {
  const english = readFileSync(join(clientDir, pageFileName(DEFAULT_LANGUAGE)), 'utf8');
  const pages = LANGUAGES.map((language) => {
    const file = join(clientDir, pageFileName(language));
    const template = existsSync(file) ? readFileSync(file, 'utf8') : english;
    return [language, preparePage(fillPageHtml(template, fill, CATALOGUES[language].title))] as const;
  });
  return Object.fromEntries(pages) as Record<Language, ServedPage>;
}

/**
 * `text` for inside a JavaScript string of any quotes: the loader is a classic script that a host page of any encoding
 * runs, so everything beyond ASCII is escaped too.
 */
function jsStringBody(text: string): string {
  return text.replace(/[\\'"`$]|[^\x20-\x7e]/g, (char) =>
    /[\\'"`$]/.test(char) ? `\\${char}` : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The launcher's default name in `language`: "Chat with {title}", with the site's title, else the language's own. */
export function launcherName(language: Language, title?: string): string {
  const catalogue = CATALOGUES[language];
  return catalogue.launcher.replace('{title}', () => title ?? catalogue.title);
}

/**
 * The built loader as served to a visitor in `language`: the texts it shows itself (its launcher's name, after the
 * site's title; its frame's title) in that language, and its launcher in the site's accent. The built loader has the
 * English texts and `EMBED_ACCENT_SENTINEL`, which leaves the launcher the theme's blue.
 */
export function localizeLoader(code: string, language: Language, { page, accent }: PageFill): string {
  const texts = [
    [launcherName(DEFAULT_LANGUAGE), launcherName(language, page.title)],
    [CATALOGUES.en.frameTitle, CATALOGUES[language].frameTitle],
  ];
  let localized = code;
  for (const [english, text] of texts) {
    const quoted = new RegExp(`([\`'"])${english.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1`, 'g');
    localized = localized.replace(quoted, (_, quote: string) => `${quote}${jsStringBody(text)}${quote}`);
  }
  return accent
    ? localized.replace(EMBED_ACCENT_SENTINEL, () => `light-dark(${accent.light},${accent.dark})`)
    : localized;
}

/**
 * The embed loader (`/embed.js`) in every language, made once at start-up like the pages, with the site's title and
 * accent; none when the client has no loader. The host page fetches it before anything of the app, so its language is
 * the site's, else the browser's: a tag's `data-lang` reaches only the frame (its `data-label` names the launcher in
 * any language).
 */
export function prepareLoaders(clientDir: string, fill: PageFill): Record<Language, ServedPage> | undefined {
  const file = join(clientDir, EMBED_LOADER_PATH);
  if (!existsSync(file)) return undefined;
  const built = readFileSync(file, 'utf8');
  const loaders = LANGUAGES.map(
    (language) =>
      [language, preparePage(localizeLoader(built, language, fill), 'text/javascript; charset=utf-8')] as const,
  );
  return Object.fromEntries(loaders) as Record<Language, ServedPage>;
}
