import type { KnowledgeIndex } from './search-index.ts';

const known = new WeakMap<KnowledgeIndex, string | undefined>();

/**
 * What the site says it is about: its home page's description (`<meta name="description">`, or a Markdown home page's
 * `description:`), the first of the index's home pages that has one. Read once per index.
 */
export function siteDescription(index: KnowledgeIndex): string | undefined {
  if (known.has(index)) return known.get(index);
  const home = index.passages.find(
    ({ page, description }) => description && /^\/(index\.html?)?$/.test(new URL(page).pathname),
  );
  known.set(index, home?.description);
  return home?.description;
}
