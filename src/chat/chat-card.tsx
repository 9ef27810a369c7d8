import { Box, chakra, Flex } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { usePageTitle } from '../page-settings';
import { Composer } from './composer';
import { useEscapeKey } from './escape-key';
import { MessageList } from './message-list';
import { NewConversationSlot } from './new-conversation-slot';
import { RobotIcon } from './robot-icon';

/**
 * The card's title (the site's own, or "AI Assistant" in English) with the robot icon: the look of Chakra's `Heading`
 * at size `lg`, without its recipe in the first-paint bundle for one title.
 */
export function CardTitle() {
  return (
    <chakra.h1
      fontFamily="heading"
      fontWeight="semibold"
      textStyle="lg"
      display="flex"
      alignItems="center"
      gap="2"
      // Beside the header's buttons a long title wraps rather than pushing them out of the card.
      minW="0"
    >
      <RobotIcon />
      {usePageTitle()}
    </chakra.h1>
  );
}

/**
 * The title's line: the title, and New conversation and Download conversation once there is a conversation, which
 * take no height of their own (the card keeps its height when they come).
 */
export function CardHeader({ children }: { children?: ReactNode }) {
  return (
    <Flex align="center" justify="space-between" gap="2">
      <CardTitle />
      <Flex align="center" gap="1">
        <NewConversationSlot />
        {children}
      </Flex>
    </Flex>
  );
}

/**
 * The one screen: a card titled "AI Assistant" holding the conversation and the composer. Escape stops a pending reply.
 * Drawn with style props rather than Chakra's `Card`, whose slot recipe pulls every component's anatomy
 * into the first-paint bundle for three paddings and a border.
 *
 * The conversation takes 80% of the window's height (the spec); the rest of the card (title line, composer, gaps,
 * paddings, border and the space around it: 142 px at most) fits in the other 20% from a 1280×720 window up, so that
 * the page itself never scrolls there. The space around the card is the padding of a box of its own: a margin would
 * pass through the page's body, which is at least the window's height (Chakra's preflight), and make it scroll.
 */
export function ChatCard() {
  useEscapeKey();
  return (
    <Box py={{ sm: 2 }}>
      <Box
        as="main"
        display="flex"
        flexDirection="column"
        gap="3"
        w="full"
        maxW="lg"
        mx="auto"
        p={{ base: 3, sm: 4 }}
        bg="bg.panel"
        borderWidth="1px"
        rounded="l3"
        shadow="md"
      >
        <CardHeader />
        <MessageList />
        <Composer />
      </Box>
    </Box>
  );
}
