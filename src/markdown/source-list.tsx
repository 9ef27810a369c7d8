import { Box } from '@chakra-ui/react';
import type { ReplySource } from '../../contract/llm';
import { t } from '../text';
import { withoutBidiControls } from './bidi-controls';
import { sourceLinks } from './render-markdown';

/**
 * The site's pages given to the model for a reply, under it: a numbered list (the numbers the reply cites as `[n]`),
 * each its title (text, never markup) and host, opening in a new tab. In the lazily loaded chunk with the Markdown
 * renderer: a reply's links show once it is in.
 */
export function SourceList({ sources }: { sources: readonly ReplySource[] }) {
  // A web address only (a source is checked for one where it is read: src/llm/request-reply.ts, the tab's storage).
  const links = sourceLinks(sources);
  const linked = sources.flatMap(({ n, title }) => {
    const href = links.get(String(n));
    return href && /^https?:/.test(href) ? [{ n, title, href, host: new URL(href).host }] : [];
  });
  if (linked.length === 0) return null;
  return (
    <Box as="section" aria-label={t('sources')} data-sources maxW="xs" fontSize="sm" color="fg.muted">
      <Box as="p" fontWeight="semibold">
        {t('sources')}
      </Box>
      <Box
        as="ol"
        ps="5"
        listStyleType="decimal"
        overflowWrap="anywhere"
        css={{ '& a': { color: 'reply.link', textDecoration: 'underline' } }}
      >
        {linked.map(({ n, title, href, host }) => (
          <li key={n} value={n}>
            <a href={href} target="_blank" rel="noopener noreferrer">
              {withoutBidiControls(title)}
            </a>{' '}
            <span>({host})</span>
          </li>
        ))}
      </Box>
    </Box>
  );
}
