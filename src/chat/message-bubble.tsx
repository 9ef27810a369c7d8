import { Box, Flex } from '@chakra-ui/react';
import { memo } from 'react';
import type { ChatMessage } from '../../machines/chat-machine';

/**
 * One message. Memoised: messages never change once appended, so a new one re-renders only itself.
 * The text is a React text node, so markup in it is shown, never interpreted.
 */
export const MessageBubble = memo(function MessageBubble({ text, sender }: ChatMessage) {
  const fromUser = sender === 'user';
  return (
    <Flex justify={fromUser ? 'flex-end' : 'flex-start'}>
      <Box as="span" srOnly>
        {fromUser ? 'You:' : 'Assistant:'}
      </Box>
      <Box
        data-sender={sender}
        maxW="xs"
        px="3"
        py="2"
        rounded="lg"
        bg={fromUser ? 'blue.600' : 'gray.100'}
        color={fromUser ? 'white' : 'gray.900'}
        whiteSpace="pre-wrap"
        overflowWrap="anywhere"
      >
        {text}
      </Box>
    </Flex>
  );
});
