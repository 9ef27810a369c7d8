import { Box, Flex } from '@chakra-ui/react';
import { memo } from 'react';
import type { ChatMessage } from '../../machines/chat-machine';

/** Said under a reply the visitor stopped (and announced with it). */
export const STOPPED_NOTE = 'Reply stopped';

/**
 * One message. Memoised: messages never change once appended, so a new one re-renders only itself (a reply that is
 * streaming in re-renders as it grows).
 * The text is a React text node, so markup in it is shown, never interpreted.
 */
export const MessageBubble = memo(function MessageBubble({ text, sender, stopped }: ChatMessage) {
  const fromUser = sender === 'user';
  return (
    <Flex direction="column" align={fromUser ? 'flex-end' : 'flex-start'} gap="1">
      <Box as="span" srOnly>
        {fromUser ? 'You:' : 'Assistant:'}
      </Box>
      {/* A reply stopped before its first piece has no text: the note alone says what happened. */}
      {(text !== '' || !stopped) && (
        <Box
          data-sender={sender}
          maxW="xs"
          px="3"
          py="2"
          rounded="lg"
          // Their dark-mode shades are in index.html's CSS (the start-up budget).
          bg={fromUser ? 'blue.600' : 'gray.100'}
          color={fromUser ? 'white' : 'gray.900'}
          whiteSpace="pre-wrap"
          overflowWrap="anywhere"
        >
          {text}
        </Box>
      )}
      {stopped && (
        <Box as="p" data-stopped fontSize="sm" fontStyle="italic" color="fg.muted">
          {STOPPED_NOTE}
        </Box>
      )}
    </Flex>
  );
});
