import { useReplyStatus } from './reply-status';

/** Where the cards' headers show "New conversation" and "Download conversation": from the reply-status chunk, once it is in. */
export function NewConversationSlot() {
  const replyStatus = useReplyStatus();
  return replyStatus ? <replyStatus.NewConversation /> : null;
}
