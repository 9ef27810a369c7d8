import { renderToString } from 'react-dom/server';
import { DEFAULT_PAGE_SETTINGS, TITLE_SENTINEL } from '../contract/page-settings';
import type { Catalogue } from '../locales/catalogue';
import { chatMachine } from '../machines/chat-machine';
import { App } from './app';
import { setCatalogue } from './text';

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
  return renderToString(<App logic={chatMachine} settings={{ ...DEFAULT_PAGE_SETTINGS, title: TITLE_SENTINEL }} />);
}
