import { Box, chakra } from '@chakra-ui/react';
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
    <chakra.h1 fontFamily="heading" fontWeight="semibold" textStyle="lg" display="flex" alignItems="center" gap="2">
      <RobotIcon />
      {usePageTitle()}
    </chakra.h1>
  );
}

/**
 * The one screen: a card titled "AI Assistant" holding the conversation and the composer. Escape stops a pending reply.
 * Drawn with style props rather than Chakra's `Card`, whose slot recipe pulls every component's anatomy
 * into the first-paint bundle for three paddings and a border.
 */
export function ChatCard() {
  useEscapeKey();
  return (
    <Box
      as="main"
      display="flex"
      flexDirection="column"
      gap="3"
      w="full"
      maxW="lg"
      mx="auto"
      my={{ base: 0, sm: 4 }}
      p={{ base: 3, sm: 5 }}
      bg="bg.panel"
      borderWidth="1px"
      rounded="l3"
      shadow="md"
    >
      <CardTitle />
      <MessageList />
      <NewConversationSlot />
      <Composer />
    </Box>
  );
}
