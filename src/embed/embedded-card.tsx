import { Box, chakra, Flex } from '@chakra-ui/react';
import { useCallback, useEffect, useRef } from 'react';
import { ChatActorContext } from '../chat/chat-actor-context';
import { CardTitle } from '../chat/chat-card';
import { Composer } from '../chat/composer';
import { RecipeButton } from '../chat/controls';
import { useEscapeKey } from '../chat/escape-key';
import { MessageList } from '../chat/message-list';
import { t } from '../text';
import { connectHostPage, type HostPage, hostOrigin } from './host-page';

/**
 * The card in the embed loader's frame: the same title, conversation and composer, filling the frame, with a close
 * button in its header. It tells the loader when it is ready, focuses the message box when the panel opens, and asks
 * the loader to close the panel on the close button or on Escape when no reply is pending (Escape stops one first).
 */
export function EmbeddedCard({ host }: { host: HostPage }) {
  const cardRef = useRef<HTMLElement>(null);
  const close = useCallback(() => host.send('close'), [host]);
  useEscapeKey(close);

  // The host page's analytics hear that the visitor sent a message (not a retry of one), never what it said.
  const messages = ChatActorContext.useSelector((snapshot) => snapshot.context.messages);
  const sent = useRef(0);
  useEffect(() => {
    const count = messages.filter((message) => message.sender === 'user').length;
    if (count > sent.current) host.send('message');
    sent.current = count;
  }, [messages, host]);

  useEffect(() => {
    const unlisten = host.listen((type) => {
      if (type === 'open') cardRef.current?.querySelector<HTMLInputElement>('input[name="message"]')?.focus();
    });
    host.send('ready');
    return unlisten;
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
        <RecipeButton type="button" variant="ghost" size="sm" aria-label={t('close')} onClick={close}>
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
