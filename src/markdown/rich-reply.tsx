import { Box, type SystemStyleObject } from '@chakra-ui/react';
import { memo, type ReactNode, useState } from 'react';
import type { ReplySource } from '../../contract/llm';
import { withoutBidiControls } from './bidi-controls';
import { renderMarkdown } from './render-markdown';
import { healPartialBlock, type ReplyBlocks, splitBlocks } from './stream-blocks';

// The lazily loaded part of the card: everything a reply needs to show as Markdown, and its Copy buttons.
export { ReplyActions } from '../chat/reply-actions';
export { SourceList } from './source-list';

/** Finished blocks rendered before, by source: a streamed reply's blocks render again as the finished message. */
const rendered = new Map<string, ReactNode>();
const RENDERED_LIMIT = 500;

function renderFinished(source: string, sources?: readonly ReplySource[]): ReactNode {
  // A reply with sources renders its citations against them: not the same node as the same text without.
  if (sources) return renderMarkdown(source, false, sources);
  let node = rendered.get(source);
  if (node === undefined) {
    node = renderMarkdown(source);
    if (rendered.size >= RENDERED_LIMIT) rendered.delete(rendered.keys().next().value as string);
    rendered.set(source, node);
  }
  return node;
}

const FinishedBlock = memo(function FinishedBlock({
  source,
  sources,
}: {
  source: string;
  sources?: readonly ReplySource[];
}) {
  return renderFinished(source, sources);
});

/**
 * A block still being written that is longer than this shows as plain text until it is complete: parsed again for each
 * piece, one huge block (a hostile reply with no blank line in it) would cost the square of its length. An answer's
 * blocks are a few hundred characters.
 */
export const PARTIAL_PARSE_LIMIT = 16_384;

function PartialBlock({ blocks, sources }: { blocks: ReplyBlocks; sources?: readonly ReplySource[] }) {
  if (blocks.tail.length > PARTIAL_PARSE_LIMIT) return <p data-source>{withoutBidiControls(blocks.tail)}</p>;
  const healed = healPartialBlock(blocks);
  return healed.trim() === '' ? null : renderMarkdown(healed, true, sources);
}

// The theme's tokens (src/theme.ts) for the elements the renderer creates; the reply itself brings no style.
const markdownStyles: SystemStyleObject = {
  whiteSpace: 'normal',
  '& > * + *, & li > * + *, & blockquote > * + *': { mt: '2' },
  '& ul, & ol': { ps: '5' },
  '& ul': { listStyleType: 'disc' },
  '& ol': { listStyleType: 'decimal' },
  '& li:has(> [data-task])': { listStyleType: 'none', ms: '-5' },
  '& [data-task]': { me: '1' },
  '& a': { color: 'reply.link', textDecoration: 'underline' },
  '& code': { fontFamily: 'mono', fontSize: '0.875em' },
  '& :not(pre) > code': { bg: 'reply.inlineCode', px: '1', rounded: 'sm' },
  '& blockquote': { borderStartWidth: '3px', borderColor: 'reply.rule', ps: '2', color: 'reply.quote' },
  '& hr': { borderColor: 'reply.rule' },
  '& del': { textDecoration: 'line-through' },
  '& [data-source]': { whiteSpace: 'pre-wrap' },
  '& [data-scroll]': { overflowX: 'auto', maxW: 'full' },
  '& [data-scroll]:focus-visible': { outline: '2px solid', outlineColor: 'focusRing', outlineOffset: '1px' },
  '& [data-code-block]': { bg: 'codeBlock.bg', color: 'codeBlock.fg', rounded: 'md', overflow: 'hidden' },
  '& [data-code-header]': {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'space-between',
    ps: '2',
    fontSize: 'xs',
    bg: 'codeBlock.header',
    '& > div': { color: 'codeBlock.fg' },
    '& button': { color: 'codeBlock.fg', _hover: { bg: 'codeBlock.hover' } },
  },
  '& pre': { p: '2', whiteSpace: 'pre', overflowWrap: 'normal', fontSize: 'sm' },
  '& table': { borderCollapse: 'collapse', fontSize: 'sm' },
  '& th, & td': { borderWidth: '1px', borderColor: 'reply.rule', px: '2', py: '1', textAlign: 'start' },
  '& [data-align=center]': { textAlign: 'center' },
  '& [data-align=right]': { textAlign: 'end' },
};

export interface RichReplyProps {
  /** The reply's Markdown source. */
  text: string;
  /** The reply is still streaming in (or was cut short): its last block is half-written. */
  partial?: boolean;
  /** The site's pages given to the model: its `[n]` link to them, and its links may go nowhere else. */
  sources?: readonly ReplySource[];
}

/**
 * A bot reply rendered as Markdown. While it streams in, only its last block is parsed again for each new piece;
 * finished blocks keep their rendering (and their DOM).
 */
export function RichReply({ text, partial = false, sources }: RichReplyProps) {
  // The blocks of the text last rendered, kept as state (React's way to keep what a previous render found): a new
  // piece is cut from where they end rather than from the start. Setting state while rendering makes React run this
  // again at once, before any child renders, and that second run finds the blocks up to date.
  const [cut, setCut] = useState(() => splitBlocks(text));
  let blocks = cut;
  if (cut.source !== text) {
    // splitBlocks checks that the text continues the one it was given, and starts again if not.
    blocks = splitBlocks(text, cut);
    setCut(blocks);
  }
  const { finished, tail } = blocks;
  return (
    <Box css={markdownStyles}>
      {finished.map((source, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a reply only grows, so a block's index is its identity.
        <FinishedBlock key={index} source={source} sources={sources} />
      ))}
      {partial ? <PartialBlock blocks={blocks} sources={sources} /> : <FinishedBlock source={tail} sources={sources} />}
    </Box>
  );
}
