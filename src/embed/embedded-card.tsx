import { Box, chakra } from '@chakra-ui/react';
import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import type { HostPageContext } from '../../contract/llm';
import type { PageSettings } from '../../contract/page-settings';
import { ChatActorContext } from '../chat/chat-actor-context';
import { CardHeader } from '../chat/chat-card';
import { Composer } from '../chat/composer';
import { RecipeButton } from '../chat/controls';
import { useEscapeKey } from '../chat/escape-key';
import { handoffSent } from '../chat/handoff-sent';
import { MessageList } from '../chat/message-list';
import { t } from '../text';
import { greetHostPage, type HostPage } from './host-page';

/**
 * The card in the embed loader's frame: the same title, conversation and composer, filling the frame, with a close
 * button in its header. It takes the focus over from the served card it replaces (in the commit, so that no keystroke
 * falls between the two), and asks the loader to close the panel on the close button or on Escape when no reply is
 * pending (Escape stops one first). Focusing the message box on open is `greetHostPage`'s.
 */
export function EmbeddedCard({ host }: { host: HostPage }) {
  const cardRef = useRef<HTMLElement>(null);
  const close = useCallback(() => host.send('close'), [host]);
  useEscapeKey(close);

  // The host page's analytics hear that the visitor sent a message (not a retry of one), never what it said.
  const messages = ChatActorContext.useSelector((snapshot) => snapshot.context.messages);
  const actor = ChatActorContext.useActorRef();
  // A conversation restored from the tab's previous page (`persist: tab`) was announced there already.
  const sent = useRef<number>(undefined);
  useEffect(() => {
    const count = messages.filter((message) => message.sender === 'user').length;
    if (sent.current !== undefined && count > sent.current) host.send('message');
    sent.current = count;
  }, [messages, host]);

  // And each vote, for the site's own counts: its rating and reason (none for a plain Helpful), never the reply. The
  // loader makes the message's `detail` the `feedback` event's.
  useEffect(() => {
    const voted = actor.on('reply.voted', ({ rating, reason }) =>
      host.send('feedback', { detail: { rating, reason } }),
    );
    return () => voted.unsubscribe();
  }, [actor, host]);

  // And a message to a person, taken (never its text or address).
  useEffect(() => {
    const tell = () => host.send('handoff');
    handoffSent.addEventListener('sent', tell);
    return () => handoffSent.removeEventListener('sent', tell);
  }, [host]);

  useLayoutEffect(() => {
    // A wheel or a drag over the frame's heading or box ends here, never scrolling the host page underneath.
    document.documentElement.style.overscrollBehavior = 'contain';
    // Replacing the served card dropped the focus its message box had: the frame still has it, its body holds it.
    if (document.hasFocus() && document.activeElement === document.body) {
      cardRef.current?.querySelector<HTMLInputElement>('input[name="message"]')?.focus();
    }
  }, []);

  return (
    <Box
      ref={cardRef}
      as="main"
      display="grid"
      gridTemplateRows="auto minmax(0, 1fr) auto"
      gap="3"
      h="100dvh"
      p="3"
      bg="bg.panel"
    >
      <CardHeader>
        <RecipeButton type="button" variant="ghost" size="sm" aria-label={t('close')} onClick={close}>
          <chakra.svg
            aria-hidden="true"
            boxSize="5"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
          >
            <path d="M6 6l12 12M18 6L6 18" />
          </chakra.svg>
        </RecipeButton>
      </CardHeader>
      <MessageList h="full" />
      <Composer />
    </Box>
  );
}

/**
 * The embedded card connected to the page that framed the app, which it greets at once (`root` holds the served card
 * until the app replaces it), or `undefined` when no allowed host framed it. What the host page tells goes into
 * `hostPage`, the object the chat machine is started with.
 */
export function embeddedCard(root: HTMLElement, settings: PageSettings, hostPage: HostPageContext) {
  const host = greetHostPage(root, settings, hostPage);
  return host ? <EmbeddedCard host={host} /> : undefined;
}
