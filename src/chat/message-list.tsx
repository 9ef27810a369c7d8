import { Flex } from '@chakra-ui/react';
import { useEffect, useRef } from 'react';
import { ChatActorContext } from './chat-actor-context';
import { MessageBubble } from './message-bubble';

/** The conversation: a polite live region that scrolls itself to the newest message. */
export function MessageList() {
  const messages = ChatActorContext.useSelector((snapshot) => snapshot.context.messages);
  const listRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const list = listRef.current;
    if (list && messages.length > 0) {
      list.scrollTop = list.scrollHeight;
    }
  }, [messages.length]);

  return (
    <Flex
      ref={listRef}
      role="log"
      aria-live="polite"
      aria-label="Conversation"
      // Focusable so that keyboard users can scroll back through the conversation.
      tabIndex={0}
      direction="column"
      gap="3"
      h="80vh"
      overflowY="auto"
      p="3"
      rounded="md"
      borderWidth="1px"
    >
      {messages.map((message, index) => (
        // The list only ever grows at its end, so a message's index is a stable identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: append-only list
        <MessageBubble key={index} text={message.text} sender={message.sender} />
      ))}
    </Flex>
  );
}
