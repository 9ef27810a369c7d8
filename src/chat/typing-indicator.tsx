import { Box, Flex } from '@chakra-ui/react';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';

/**
 * While the first piece of a reply is awaited: three dots on the bot's side of the conversation, and once the wait
 * is long, a short status saying that the model is still working and that Stop is there. The dots are decoration
 * (the disabled box already says "Sending..."); the status is text, announced by the conversation's live region.
 */
export function TypingIndicator() {
  const waiting = ChatActorContext.useSelector((snapshot) => snapshot.matches({ sending: 'waiting' }));
  const slow = ChatActorContext.useSelector((snapshot) => snapshot.matches({ sending: { waiting: 'slow' } }));
  if (!waiting) return null;
  return (
    <Flex direction="column" align="flex-start" gap="1">
      <Flex data-testid="typing-indicator" aria-hidden="true" gap="1" px="3" py="3" rounded="lg" bg="bot">
        {[0, 1, 2].map((dot) => (
          <Box
            key={dot}
            boxSize="2"
            rounded="full"
            bg="reply.dot"
            css={{
              animation: `typing-dot 1.2s ease-in-out ${dot * 0.2}s infinite`,
              '@media (prefers-reduced-motion: reduce)': { animation: 'none' },
            }}
          />
        ))}
      </Flex>
      {slow && (
        <Box as="p" fontSize="sm" color="fg.muted">
          {t('slowHint')}
        </Box>
      )}
    </Flex>
  );
}
