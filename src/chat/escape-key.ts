import { useEffect } from 'react';
import { ChatActorContext } from './chat-actor-context';

/**
 * The card's one Escape handler, on the whole document (the box is disabled while sending, so the focus cannot be
 * there). The machine decides: Escape stops a pending reply when the snapshot can take `reply.stop`, and otherwise does
 * `otherwise` (the embedded card closes its panel), so a visitor who stops a reply never closes the chat with it.
 * `otherwise` must keep its identity between renders.
 */
export function useEscapeKey(otherwise?: () => void) {
  const actorRef = ChatActorContext.useActorRef();
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      if (actorRef.getSnapshot().can({ type: 'reply.stop' })) {
        event.preventDefault();
        actorRef.send({ type: 'reply.stop' });
      } else {
        otherwise?.();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [actorRef, otherwise]);
}
