import { describe, expect, it } from 'vitest';
import { CATALOGUES } from '../locales/catalogues.ts';
import { localizePage } from './prerender-card.ts';

const INDEX =
  '<!doctype html><html lang="en"><head><title>AI Assistant</title></head><body><div id="root"></div></body></html>';

/** The catalogue as the page reads it (src/text.ts). */
function catalogueIn(html: string) {
  const json = /<script type="application\/json" id="catalogue">(.*?)<\/script>/.exec(html)?.[1];
  return json === undefined ? undefined : JSON.parse(json);
}

describe('a page in one language', () => {
  it('has its lang and dir, and its one catalogue', () => {
    const page = localizePage(INDEX, 'he');
    expect(page).toContain('<html lang="he" dir="rtl">');
    expect(catalogueIn(page)).toEqual(CATALOGUES.he);
    expect(page).not.toContain(CATALOGUES.en.placeholder);
  });

  it('keeps English the page as it was, marked left to right', () => {
    const page = localizePage(INDEX, 'en');
    expect(page).toContain('<html lang="en" dir="ltr"><head><title>AI Assistant</title>');
    expect(catalogueIn(page)).toEqual(CATALOGUES.en);
  });

  it('refuses a page it cannot localize', () => {
    expect(() => localizePage('<html><body></body></html>', 'de')).toThrow(/<html lang>/);
  });
});
