import { HandoffSent } from './handoff-panel';
import { RetryRow } from './reply-controls';
import { TypingIndicator } from './typing-indicator';

/**
 * What follows the messages in the conversation's live region: that a message went to the site's people, the typing
 * indicator while a reply is awaited, and Retry under a reply that failed.
 */
export function ConversationEnd() {
  return (
    <>
      <HandoffSent />
      <TypingIndicator />
      <RetryRow />
    </>
  );
}
