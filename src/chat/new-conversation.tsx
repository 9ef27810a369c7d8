import { chakra, Flex } from '@chakra-ui/react';
import type { MouseEvent, ReactNode } from 'react';
import { usePageTitle } from '../page-settings';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';
import { conversationMarkdown, saveMarkdown } from './download-conversation';
import { PERSON_ICON, useHandoffOffered, useOpenHandoff } from './handoff-offer';

/**
 * In the card's header, once there is a conversation: "New conversation" (the messages go, and what the tab keeps with
 * them, with or without `persist`), "Download conversation" once there is a reply (a Markdown file made in the
 * browser), and with the site's `handoff:` "Contact a person" (the card's form) until a message went to its people in
 * this conversation. In the header's line, beside the title, so that the card keeps its height when they come.
 */
export function NewConversation() {
  const actorRef = ChatActorContext.useActorRef();
  const hasConversation = ChatActorContext.useSelector((snapshot) => snapshot.can({ type: 'conversation.clear' }));
  const hasReply = ChatActorContext.useSelector((snapshot) =>
    snapshot.context.messages.some((message) => message.sender === 'bot'),
  );
  const title = usePageTitle();
  const personOffered = useHandoffOffered();
  const openHandoff = useOpenHandoff();
  if (!hasConversation) return null;
  const download = () => {
    const now = new Date();
    saveMarkdown(conversationMarkdown(actorRef.getSnapshot().context.messages, title, now), now);
  };
  return (
    <Flex gap="1" flexShrink="0">
      <HeaderButton label={t('newConversation')} onClick={() => actorRef.send({ type: 'conversation.clear' })}>
        <path d="M12 5v14M5 12h14" />
      </HeaderButton>
      {hasReply && (
        <HeaderButton label={t('downloadConversation')} onClick={download}>
          <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
        </HeaderButton>
      )}
      {personOffered && (
        <HeaderButton label={t('contactPerson')} onClick={(event) => openHandoff(event.currentTarget)}>
          <path d={PERSON_ICON} />
        </HeaderButton>
      )}
    </Flex>
  );
}

/**
 * A button no taller than the title's line: its icon, and its text where the card is wide enough for it (on a phone,
 * and in the embed's narrow panel, the icon alone, named by `aria-label` and shown by `title`).
 */
function HeaderButton({
  label,
  onClick,
  children,
}: {
  label: string;
  onClick: (event: MouseEvent<HTMLButtonElement>) => void;
  children: ReactNode;
}) {
  return (
    <RecipeButton type="button" variant="ghost" size="2xs" aria-label={label} title={label} onClick={onClick}>
      <chakra.svg
        aria-hidden="true"
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {children}
      </chakra.svg>
      <chakra.span display={{ base: 'none', sm: 'inline' }}>{label}</chakra.span>
    </RecipeButton>
  );
}
