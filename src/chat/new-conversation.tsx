import { useContext } from 'react';
import { KeepsConversationContext } from '../page-settings';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';

/**
 * "New conversation", where the site keeps the conversation for the tab (`persist: tab`) and there is one to clear: the
 * messages go, and what the tab keeps with them.
 */
export function NewConversation() {
  const keeps = useContext(KeepsConversationContext);
  const actorRef = ChatActorContext.useActorRef();
  const hasConversation = ChatActorContext.useSelector((snapshot) => snapshot.context.messages.length > 0);
  if (!keeps || !hasConversation) return null;
  return (
    <RecipeButton
      type="button"
      variant="ghost"
      size="sm"
      alignSelf="start"
      onClick={() => actorRef.send({ type: 'conversation.clear' })}
    >
      {t('newConversation')}
    </RecipeButton>
  );
}
