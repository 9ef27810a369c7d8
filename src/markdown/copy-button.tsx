import { Flex } from '@chakra-ui/react';
import { useEffect, useState } from 'react';
import { RecipeButton } from '../chat/controls';
import { t } from '../text';
import { StrokeIcon } from './stroke-icon';

/** How long "Copied" stays after a copy. */
const CONFIRMATION_MS = 2000;

type CopyState = 'idle' | 'copied' | 'failed';

export interface CopyButtonProps {
  /** What goes to the clipboard. */
  text: string;
  /** The button's accessible name (default: "Copy reply" in the page's language). */
  label?: string;
}

/**
 * A small icon button that copies `text`, then says "Copied" next to itself in a status region, which screen readers
 * announce. The icon has no text of its own, so the conversation's live region reads a reply without "Copy" in it.
 */
export function CopyButton({ text, label = t('copyReply') }: CopyButtonProps) {
  const [state, setState] = useState<CopyState>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), CONFIRMATION_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };

  return (
    <Flex align="center" gap="1" fontSize="xs" color="fg.muted">
      <RecipeButton size="2xs" variant="ghost" aria-label={label} title={label} onClick={copy}>
        <StrokeIcon>
          {state === 'copied' ? <path d="M20 6 9 17l-5-5" /> : <path d="M9 9h11v11H9zM5 15H4V4h11v1" />}
        </StrokeIcon>
      </RecipeButton>
      <span role="status">{state === 'copied' ? t('copied') : state === 'failed' ? t('copyFailed') : ''}</span>
    </Flex>
  );
}
