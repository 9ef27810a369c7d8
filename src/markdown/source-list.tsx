import { Box } from '@chakra-ui/react';
import { useId, useState } from 'react';
import type { ReplySource } from '../../contract/llm';
import { RecipeButton } from '../chat/controls';
import { t } from '../text';
import { withoutBidiControls } from './bidi-controls';
import { citedSources, sourceLinks } from './render-markdown';
import { StrokeIcon } from './stroke-icon';

/** One line of the Sources list: a page, at the address of one of its sections. */
export interface SourceEntry {
  /** The number of the source it links to, as the reply cites it. */
  n: number;
  title: string;
  href: string;
  host: string;
  /** The reply cites the page (any of its sources). */
  cited: boolean;
}

/**
 * The Sources list's lines: one a page (its address without the section), so two passages of one page give one line.
 * The pages the reply cites come first, in the order it first cites them, each at the section it cites first; then
 * the others, in the sources' order. Only web addresses (a source is checked for one where it is read:
 * src/llm/request-reply.ts, the tab's storage). Every `[n]` keeps its own link in the reply.
 */
export function sourceEntries(sources: readonly ReplySource[], text: string): SourceEntry[] {
  const links = sourceLinks(sources);
  const cited = citedSources(text, sources);
  const entries = new Map<string, SourceEntry>();
  [...cited, ...sources.map(({ n }) => String(n))].forEach((n, index) => {
    const href = links.get(n);
    if (!href || !/^https?:/.test(href)) return;
    const url = new URL(href);
    url.hash = '';
    if (entries.has(url.href)) return;
    const title = sources.find((source) => String(source.n) === n)?.title ?? '';
    entries.set(url.href, { n: Number(n), title, href, host: url.host, cited: index < cited.length });
  });
  return [...entries.values()];
}

function Entries({
  entries,
  hosts,
  ...list
}: {
  entries: SourceEntry[];
  hosts: boolean;
  id?: string;
  hidden?: boolean;
}) {
  return (
    <ol {...list}>
      {entries.map(({ n, title, href, host }) => (
        <li key={n} value={n}>
          <a href={href} target="_blank" rel="noopener noreferrer">
            {withoutBidiControls(title)}
          </a>
          {hosts && ` (${host})`}
        </li>
      ))}
    </ol>
  );
}

/**
 * The site's pages given to the model for a reply, under it, each page once: a numbered list (the number of the `[n]`
 * it links to), each line its title (text, never markup), opening in a new tab. The pages the reply cites come first
 * and the rest wait behind "More"; a reply that cites none shows them all. The host is said once in the heading when
 * every page shares it, else on each line. In the lazily loaded chunk with the Markdown renderer: a reply's links show
 * once it is in.
 */
export function SourceList({ sources, text }: { sources: readonly ReplySource[]; text: string }) {
  const [open, setOpen] = useState(false);
  const moreId = useId();
  const entries = sourceEntries(sources, text);
  if (entries.length === 0) return null;
  const host = entries.every((entry) => entry.host === entries[0].host) ? entries[0].host : undefined;
  const cited = entries.filter((entry) => entry.cited);
  const more = cited.length > 0 ? entries.filter((entry) => !entry.cited) : [];
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
      <Entries entries={cited.length > 0 ? cited : entries} hosts={!host} />
      {more.length > 0 && (
        <>
          <RecipeButton
            size="2xs"
            variant="ghost"
            color="fg.muted"
            aria-expanded={open}
            aria-controls={moreId}
            onClick={() => setOpen(!open)}
          >
            {t('more')}
            <StrokeIcon>
              <path d={open ? 'm6 15 6-6 6 6' : 'm6 9 6 6 6-6'} />
            </StrokeIcon>
          </RecipeButton>
          <Entries entries={more} hosts={!host} id={moreId} hidden={!open} />
        </>
      )}
    </Box>
  );
}
