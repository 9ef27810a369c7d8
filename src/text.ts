import { CATALOGUE_ELEMENT_ID, type Catalogue, type MessageKey } from '../locales/catalogue';

// The page speaks one language for its whole life, chosen by the server (locales/languages.ts): a module's value,
// set once before the first render, rather than a React context that nothing would ever change.
let catalogue: Catalogue;

/** Sets the texts the card shows: the page's catalogue in the app, a chosen one at build time and in tests. */
export function setCatalogue(next: Catalogue): void {
  catalogue = next;
}

/** The text for `key` in the page's language. */
export function t(key: MessageKey): string {
  return catalogue[key];
}

/** The catalogue the served page carries (the build and the server put the chosen language's in the HTML). */
export function readPageCatalogue(): Catalogue {
  const text = document.getElementById(CATALOGUE_ELEMENT_ID)?.textContent;
  if (!text) throw new Error(`The page has no #${CATALOGUE_ELEMENT_ID}: it was not served by the build or the server`);
  return JSON.parse(text) as Catalogue;
}
