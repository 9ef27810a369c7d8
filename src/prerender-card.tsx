import { createSystem } from '@chakra-ui/react';
import { Global, type Interpolation, type Theme } from '@emotion/react';
import { renderToString } from 'react-dom/server';
import { DEFAULT_PAGE_SETTINGS, TITLE_SENTINEL } from '../contract/page-settings';
import type { Catalogue } from '../locales/catalogue';
import { chatMachine } from '../machines/chat-machine';
import { App } from './app';
import { cardBaseConfig } from './card-base-config';
import { cardThemeConfig } from './system';
import { setCatalogue } from './text';

let globalStyles: Interpolation<Theme>;

/**
 * The card's global CSS, which the card's system in a page rendered here leaves out (src/system.ts): the page carries
 * it in a style element ahead of the card's, after the order of Chakra's cascade layers, which the first mention of a
 * layer fixes.
 */
export function servedGlobalStyles(): Interpolation<Theme> {
  if (!globalStyles) {
    const system = createSystem(cardBaseConfig, cardThemeConfig);
    globalStyles = [system.layers.atRule, system.getGlobalCss() as Interpolation<Theme>];
  }
  return globalStyles;
}

/**
 * The idle card as HTML, with the styles it needs inline (Emotion writes each rule beside the element that uses it on
 * the server; the client's cache moves them into the head before hydration). Rendered at build time into index.html
 * (build/prerender-card.ts); nothing here runs in the browser. No reply is fetched while idle, so the machine needs no
 * actors. Rendered once per language, each with its own catalogue. The title is a sentinel, replaced with the
 * language's own in the pages the build writes, and with the site's by the server at start-up
 * (server/pages/page-html.ts), so that a new title takes a restart, not a build.
 */
export function renderIdleCard(catalogue: Catalogue): string {
  setCatalogue(catalogue);
  return renderToString(
    <>
      <Global styles={servedGlobalStyles()} />
      <App logic={chatMachine} settings={{ ...DEFAULT_PAGE_SETTINGS, title: TITLE_SENTINEL }} />
    </>,
  );
}
