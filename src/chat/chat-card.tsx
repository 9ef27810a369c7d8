import { Card, Heading } from '@chakra-ui/react';
import { Composer } from './composer';
import { MessageList } from './message-list';
import { RobotIcon } from './robot-icon';

/** The one screen: a card titled "AI Assistant" holding the conversation and the composer. */
export function ChatCard() {
  return (
    <Card.Root as="main" variant="elevated" w="full" maxW="lg" mx="auto" my={{ base: 0, sm: 4 }}>
      <Card.Header>
        <Heading as="h1" size="lg" display="flex" alignItems="center" gap="2">
          <RobotIcon boxSize="6" />
          AI Assistant
        </Heading>
      </Card.Header>
      <Card.Body py="2">
        <MessageList />
      </Card.Body>
      <Card.Footer>
        <Composer />
      </Card.Footer>
    </Card.Root>
  );
}
