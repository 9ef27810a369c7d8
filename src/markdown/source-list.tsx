import { Box } from '@chakra-ui/react';
import type { ReplySource } from '../../contract/llm';
import { t } from '../text';
import { withoutBidiControls } from './bidi-controls';
import { citedSources, sourceLinks } from './render-markdown';

/** One line of the Sources list: a page the reply cites, at the address of the section it cites first. */
export interface SourceEntry {
  /** The number of the source it links to, as the reply cites it. */
  n: number;
  title: string;
  href: string;
  host: string;
}

/**
 * The Sources list's lines: the pages the reply cites, in the order it first cites them, one a page (its address
 * without the section), each at the section it cites first. A source given to the model that the reply does not cite
 * is not a source of the reply: it has no line. Only web addresses (a source is checked for one where it is read:
 * src/llm/request-reply.ts, the tab's storage). Every `[n]` keeps its own link in the reply.
 */
export function sourceEntries(sources: readonly ReplySource[], text: string): SourceEntry[] {
  const links = sourceLinks(sources);
  const entries = new Map<string, SourceEntry>();
  for (const n of citedSources(text, sources)) {
    const href = links.get(n);
    if (!href || !/^https?:/.test(href)) continue;
    const source = sources.find((entry) => String(entry.n) === n);
    // The server names the page; a conversation kept in the tab from before it did keeps its sections apart.
    const page = source?.page ?? href;
    if (entries.has(page)) continue;
    entries.set(page, { n: Number(n), title: source?.title ?? '', href, host: new URL(href).host });
  }
  return [...entries.values()];
}

/**
 * The pages a reply cites, under it, each page once: a numbered list (the number of the `[n]` it links to), each line
 * its title (text, never markup), opening in a new tab. A reply that cites none has no list. The host is said once in
 * the heading when every page shares it, else on each line. In the lazily loaded chunk with the Markdown renderer: a
 * reply's links show once it is in.
 */
export function SourceList({ sources, text }: { sources: readonly ReplySource[]; text: string }) {
  const entries = sourceEntries(sources, text);
  if (entries.length === 0) return null;
  const host = entries.every((entry) => entry.host === entries[0].host) ? entries[0].host : undefined;
  return (
    <Box
      as="section"
      aria-label={t('sources')}
      data-sources
      maxW="xs"
      fontSize="sm"
      color="fg.muted"
      overflowWrap="anywhere"
      css={{
        '& ol': { ps: '5', listStyleType: 'decimal' },
        '& a': { color: 'reply.link', textDecoration: 'underline' },
      }}
    >
      <Box as="p" fontWeight="semibold">
        {host ? t('sourcesFrom').replace('{host}', host) : t('sources')}
      </Box>
      <ol>
        {entries.map(({ n, title, href, host: own }) => (
          <li key={n} value={n}>
            <a href={href} target="_blank" rel="noopener noreferrer">
              {withoutBidiControls(title)}
            </a>
            {!host && ` (${own})`}
          </li>
        ))}
      </ol>
    </Box>
  );
}
