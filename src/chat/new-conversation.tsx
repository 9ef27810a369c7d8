import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';

/**
 * "New conversation", for a site that keeps the conversation for the tab (`persist: tab`), whenever there is one to
 * clear: the messages go, and what the tab keeps with them.
 */
export function NewConversation() {
  const actorRef = ChatActorContext.useActorRef();
  const hasConversation = ChatActorContext.useSelector((snapshot) => snapshot.can({ type: 'conversation.clear' }));
  if (!hasConversation) return null;
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
