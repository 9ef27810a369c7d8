const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const xmlText = (text: string) =>
  text
    .replace(/^\s*(?:<!\[CDATA\[)?|(?:\]\]>)?\s*$/g, '')
    .replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]);

/** One `<url>` or `<sitemap>` entry: its `<loc>`, and its `<lastmod>` as ms since the epoch when it has a valid one. */
export interface SitemapEntry {
  location: string;
  lastmod?: number;
}

/** The entries of a sitemap or sitemap index (the XML is that simple, so no XML parser is needed). */
export function sitemapLocations(xml: string): { index: boolean; entries: SitemapEntry[] } {
  const entries: SitemapEntry[] = [];
  // Each entry runs from its `<url>` or `<sitemap>` to the next: one pass, whatever order its tags come in.
  for (const entry of xml.split(/<(?:url|sitemap)[\s>]/i).slice(1)) {
    if (!/<loc>/i.test(entry)) continue;
    const location = xmlText(/<loc>([\s\S]*?)<\/loc>/i.exec(entry)?.[1] ?? '');
    const lastmod = Date.parse(xmlText(/<lastmod>([\s\S]*?)<\/lastmod>/i.exec(entry)?.[1] ?? ''));
    entries.push(Number.isNaN(lastmod) ? { location } : { location, lastmod });
  }
  return { index: /<sitemapindex[\s>]/i.test(xml), entries };
}
