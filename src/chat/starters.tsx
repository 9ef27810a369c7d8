import { Flex } from '@chakra-ui/react';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';

const NO_STARTERS: readonly string[] = [];

/**
 * The site's starter questions, offered while the machine says nothing has been sent yet (`idle.fresh`). A click sends
 * the question as the visitor's message, through the machine's ordinary submit.
 */
export function Starters() {
  const actorRef = ChatActorContext.useActorRef();
  const starters = ChatActorContext.useSelector((snapshot) =>
    snapshot.matches({ idle: 'fresh' }) ? (snapshot.context.starters ?? NO_STARTERS) : NO_STARTERS,
  );
  if (starters.length === 0) return null;
  return (
    <Flex role="group" aria-label="Suggested questions" wrap="wrap" gap="2" justify="flex-end">
      {starters.map((text) => (
        <RecipeButton
          key={text}
          type="button"
          size="sm"
          variant="outline"
          // A long starter (up to 80 characters, perhaps an address without a space) wraps inside the button, which
          // never grows past the card's width.
          maxW="full"
          overflowWrap="anywhere"
          h="auto"
          minH="8"
          py="1"
          whiteSpace="normal"
          textAlign="start"
          onClick={() => actorRef.send({ type: 'message.submit', text })}
        >
          {text}
        </RecipeButton>
      ))}
    </Flex>
  );
}
