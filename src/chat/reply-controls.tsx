import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';

/**
 * Stop while a reply is pending (Escape does the same: see escape-key.ts), Retry after one failed, timed out or was
 * stopped. They sit over the bottom of the conversation rather than beside Send, so that nothing in the composer
 * moves when they come and go: a second click on Send lands on the disabled Send, never on Stop.
 */
export function ReplyControls() {
  const actorRef = ChatActorContext.useActorRef();
  const sending = ChatActorContext.useSelector((snapshot) => snapshot.matches('sending'));
  const retryable = ChatActorContext.useSelector((snapshot) => snapshot.matches({ idle: 'retryable' }));

  const action = sending
    ? ({ label: t('stop'), event: 'reply.stop' } as const)
    : retryable
      ? ({ label: t('retry'), event: 'reply.retry' } as const)
      : null;
  if (!action) return null;
  return (
    <RecipeButton
      // Two elements (keys), not one relabelled: a Stop that is pressed goes away, and so the focus returns to the box.
      key={action.event}
      size="sm"
      variant="outline"
      bg="bg"
      shadow="sm"
      onClick={() => actorRef.send({ type: action.event })}
    >
      {action.label}
    </RecipeButton>
  );
}
