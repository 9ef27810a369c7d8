import { Flex } from '@chakra-ui/react';
import { usePageTitle } from '../page-settings';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';
import { conversationMarkdown, saveMarkdown } from './download-conversation';

/**
 * Under the conversation, once there is one: "New conversation" (the messages go, and what the tab keeps with them,
 * with or without `persist`), and "Download conversation" once there is a reply (a Markdown file made in the browser).
 */
export function NewConversation() {
  const actorRef = ChatActorContext.useActorRef();
  const hasConversation = ChatActorContext.useSelector((snapshot) => snapshot.can({ type: 'conversation.clear' }));
  const hasReply = ChatActorContext.useSelector((snapshot) =>
    snapshot.context.messages.some((message) => message.sender === 'bot'),
  );
  const title = usePageTitle();
  if (!hasConversation) return null;
  const download = () => {
    const now = new Date();
    saveMarkdown(conversationMarkdown(actorRef.getSnapshot().context.messages, title, now), now);
  };
  return (
    <Flex gap="2" wrap="wrap">
      <RecipeButton
        type="button"
        variant="ghost"
        size="sm"
        onClick={() => actorRef.send({ type: 'conversation.clear' })}
      >
        {t('newConversation')}
      </RecipeButton>
      {hasReply && (
        <RecipeButton type="button" variant="ghost" size="sm" onClick={download}>
          {t('downloadConversation')}
        </RecipeButton>
      )}
    </Flex>
  );
}
