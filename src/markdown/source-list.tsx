import { Box } from '@chakra-ui/react';
import type { ReplySource } from '../../contract/llm';
import { t } from '../text';
import { withoutBidiControls } from './bidi-controls';

/** The host a source's address names, for the visitor to see where a link goes; nothing when it is no web address. */
function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The site's pages given to the model for a reply, under it: a numbered list (the numbers the reply cites as `[n]`),
 * each its title (text, never markup) and host, opening in a new tab. In the lazily loaded chunk with the Markdown
 * renderer: a reply's links show once it is in.
 */
export function SourceList({ sources }: { sources: readonly ReplySource[] }) {
  const linked = sources.filter(({ url }) => hostOf(url) !== undefined);
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
        {linked.map(({ n, title, url }) => (
          <li key={n} value={n}>
            <a href={url} target="_blank" rel="noopener noreferrer">
              {withoutBidiControls(title)}
            </a>{' '}
            <span>({hostOf(url)})</span>
          </li>
        ))}
      </Box>
    </Box>
  );
}
