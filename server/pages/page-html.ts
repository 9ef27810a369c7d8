import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { EMBED_ACCENT_SENTINEL, EMBED_LOADER_PATH } from '../../contract/embed.ts';
import { OWNER_PAGE_FILE } from '../../contract/owner.ts';
import {
  ACCENT_RING_VARIABLE,
  ACCENT_VARIABLE,
  DEFAULT_PAGE_SETTINGS,
  PAGE_SETTINGS_ID,
  type PageSettings,
  TITLE_SENTINEL,
} from '../../contract/page-settings.ts';
import { CATALOGUES } from '../../locales/catalogues.ts';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language, pageFileName } from '../../locales/languages.ts';
import type { AccentShades } from './accent.ts';

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
function accentCss({ light, dark, darkRing }: AccentShades): string {
  const v = ACCENT_VARIABLE;
  const r = ACCENT_RING_VARIABLE;
  const darkRules = `${v}:${dark};${r}:${darkRing}`;
  return `:root{${v}:${light};${r}:${light}}:root.dark{${darkRules}}@media (prefers-color-scheme:dark){:root:not(.light){${darkRules}}}`;
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

/** The owner's page as the build wrote it (`owner.html`, nothing to fill), or `undefined` for a build without it. */
export function prepareOwnerPage(clientDir: string): ServedPage | undefined {
  const file = join(clientDir, OWNER_PAGE_FILE);
  return existsSync(file) ? preparePage(readFileSync(file, 'utf8')) : undefined;
}

/**
 * Where the build keeps the pages' templates (the prerendered card with `TITLE_SENTINEL`, no settings): beside the
 * client folder, not in it, since a static host serves everything in it (build/prerender-card.ts writes them there):
 * `dist/client-page-templates` for `dist/client`.
 */
export function pageTemplatesDir(clientDir: string): string {
  return join(dirname(clientDir), `${basename(clientDir)}-page-templates`);
}

/**
 * A finished page (as the build writes into the client folder) made a template again: the language's own title, where
 * the card's heading ends, becomes `TITLE_SENTINEL`, so that a site's title reaches the heading too.
 */
function templateOf(html: string, language: Language): string {
  if (html.includes(TITLE_SENTINEL)) return html;
  return html.replace(`>${escapeHtml(CATALOGUES[language].title)}</h1>`, () => `>${TITLE_SENTINEL}</h1>`);
}

/**
 * Each language's template: the build's (`pageTemplatesDir`), else the finished page in the client folder itself (a
 * deployment that left the templates behind, or a client built by hand, as some tests do); English for a language
 * without a page.
 */
export function readPageTemplates(clientDir: string): Record<Language, string> {
  const read = (language: Language) => {
    const template = join(pageTemplatesDir(clientDir), pageFileName(language));
    if (existsSync(template)) return readFileSync(template, 'utf8');
    const page = join(clientDir, pageFileName(language));
    return existsSync(page) ? templateOf(readFileSync(page, 'utf8'), language) : undefined;
  };
  const english = read(DEFAULT_LANGUAGE);
  if (english === undefined) throw new Error(`No ${pageFileName(DEFAULT_LANGUAGE)} in ${clientDir}`);
  return Object.fromEntries(LANGUAGES.map((language) => [language, read(language) ?? english])) as Record<
    Language,
    string
  >;
}

/** Each language's page filled with `fill`, as the server serves it and a direct-mode build writes it. */
export function fillPages(templates: Record<Language, string>, fill: PageFill): Record<Language, string> {
  return Object.fromEntries(
    LANGUAGES.map((language) => [language, fillPageHtml(templates[language], fill, CATALOGUES[language].title)]),
  ) as Record<Language, string>;
}

/** The page in every language, filled and compressed once, at start-up, from the build's templates. */
export function preparePages(clientDir: string, fill: PageFill): Record<Language, ServedPage> {
  const pages = fillPages(readPageTemplates(clientDir), fill);
  return Object.fromEntries(LANGUAGES.map((language) => [language, preparePage(pages[language])])) as Record<
    Language,
    ServedPage
  >;
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

/** The texts of the loader's notice when its frame does not answer (embed/loader.ts). */
const LOADER_NOTICE_KEYS = ['frameFailed', 'openInTab', 'close'] as const;

/**
 * The built loader as served to a visitor in `language`: the texts it shows itself (its launcher's name, after the
 * site's title; its frame's title; its notice when the frame does not answer) in that language, and its launcher in the
 * site's accent. The built loader has the English texts and `EMBED_ACCENT_SENTINEL`, which leaves the launcher the
 * theme's blue.
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
  // The panel's notice (a frame that does not answer) is HTML text in the loader's markup, each after a `>`.
  for (const key of LOADER_NOTICE_KEYS) {
    const text = jsStringBody(escapeHtml(CATALOGUES[language][key]));
    localized = localized.replace(`>${CATALOGUES.en[key]}`, () => `>${text}`);
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
