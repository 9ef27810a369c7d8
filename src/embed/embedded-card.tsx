import { Box, chakra, Flex } from '@chakra-ui/react';
import { useEffect, useRef } from 'react';
import { CardTitle } from '../chat/chat-card';
import { Composer } from '../chat/composer';
import { RecipeButton } from '../chat/controls';
import { MessageList } from '../chat/message-list';
import { connectHostPage, type HostPage, hostOrigin } from './host-page';

/**
 * The card in the embed loader's frame: the same title, conversation and composer, filling the frame, with a close
 * button in its header. It tells the loader when it is ready, focuses the message box when the panel opens, and asks
 * the loader to close the panel on the close button or Escape (unless Escape already stopped a pending reply).
 */
export function EmbeddedCard({ host }: { host: HostPage }) {
  const cardRef = useRef<HTMLElement>(null);

  useEffect(() => {
    const unlisten = host.listen((type) => {
      if (type === 'open') cardRef.current?.querySelector<HTMLInputElement>('input[name="message"]')?.focus();
    });
    // On window, so that it runs after the Stop control's Escape handler on the document, which stops a reply.
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) host.send('close');
    };
    window.addEventListener('keydown', closeOnEscape);
    host.send('ready');
    return () => {
      unlisten();
      window.removeEventListener('keydown', closeOnEscape);
    };
  }, [host]);

  return (
    <Box
      ref={cardRef}
      as="main"
      display="grid"
      gridTemplateRows="auto minmax(0, 1fr) auto"
      gap="3"
      h="100dvh"
      p="3"
      bg="bg.panel"
    >
      <Flex align="center" justify="space-between" gap="2">
        <CardTitle />
        <RecipeButton
          type="button"
          variant="ghost"
          size="sm"
          aria-label="Close chat"
          onClick={() => host.send('close')}
        >
          <chakra.svg
            aria-hidden="true"
            boxSize="5"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
          >
            <path d="M6 6l12 12M18 6L6 18" />
          </chakra.svg>
        </RecipeButton>
      </Flex>
      <MessageList h="full" />
      <Composer />
    </Box>
  );
}

/** The embedded card connected to the page that framed the app, or `undefined` when no allowed host framed it. */
export function embeddedCard() {
  const origin = hostOrigin();
  return origin ? <EmbeddedCard host={connectHostPage(origin)} /> : undefined;
}
