import { Box, Flex } from '@chakra-ui/react';
import { shallowEqual } from '@xstate/react';
import { memo, useDeferredValue, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';
import { FaultBoundary } from './fault-boundary';
import { MessageBubble, type MessageBubbleProps, PlainText } from './message-bubble';
import { useReplyStatus } from './reply-status';
import { Starters } from './starters';

/**
 * Messages per group. Each group is laid out and painted on its own (CSS containment), so that one more message
 * costs the browser about the same in a long conversation as in a short one: in a flat list Chromium lays out and
 * paints every row again on each append, a cost that grows with the conversation (plain DOM or React alike). It
 * also keeps React's work per append small: only the last group re-renders, and in it only the new bubble.
 */
const GROUP_SIZE = 50;

/** How close to the end (in CSS pixels) still counts as "at the newest message": a rounding step, not a gesture. */
const AT_END_SLACK_PX = 8;

function isAtEnd(list: HTMLElement): boolean {
  return list.scrollHeight - list.scrollTop - list.clientHeight <= AT_END_SLACK_PX;
}

/**
 * The conversation as the list shows it. While a reply streams in, the list follows it as a deferred value: a slow
 * phone reads several pieces of a stream in one task, and rendering the reply (as Markdown) for each of them there would
 * make one long task; deferred, the pieces that arrive together cost one rendering, done in a transition that yields to
 * the browser. The messages, the reply and whether it streams change together, so no frame shows a reply twice or not
 * at all. Everything else (the visitor's message, a reply's first piece and its end) shows at once. The reply streaming
 * in is the next row, at the index it will have once complete: the finished message then updates that bubble (keeping
 * the DOM of its finished blocks) rather than replacing it.
 */
function useShownConversation() {
  const current = ChatActorContext.useSelector(
    (snapshot) => ({
      messages: snapshot.context.messages,
      reply: snapshot.context.reply,
      sources: snapshot.context.sources,
      streaming: snapshot.matches({ sending: 'streaming' }),
    }),
    shallowEqual,
  );
  const deferred = useDeferredValue(current);
  const { messages, reply, sources, streaming } = current.streaming && deferred.streaming ? deferred : current;
  const rows: readonly MessageBubbleProps[] = streaming
    ? [...messages, { text: reply, sender: 'bot', streaming: true, ...(sources ? { sources } : {}) }]
    : messages;
  return [messages, reply, streaming, rows] as const;
}

/**
 * The conversation: a polite live region that follows the newest text while the visitor is at the end of it. A
 * visitor who scrolls back stays where they are, with a "Jump to latest" button, until they return to the end or send.
 * Over its bottom edge sit that button and the reply's Stop; Retry follows the reply it asks for again. "Contact a
 * person" opens its form over the whole list.
 */
export function MessageList({
  h = '80vh',
}: {
  /** The list's height: 80% of the viewport (the spec), or the card's in the embed loader's frame. */
  h?: string;
}) {
  const [messages, reply, streaming, rows] = useShownConversation();
  const welcome = ChatActorContext.useSelector((snapshot) => snapshot.context.welcome);
  const replyStatus = useReplyStatus();
  const { listRef, behind, onScroll, jumpToLatest } = useFollowEnd(messages, reply);
  const groups: number[] = [];
  for (let start = 0; start < rows.length; start += GROUP_SIZE) groups.push(start);

  return (
    <Box position="relative">
      <Flex
        ref={listRef}
        role="log"
        aria-live="polite"
        aria-label={t('conversation')}
        // While a reply streams in, screen readers wait and announce it once, complete, rather than piece by piece.
        aria-busy={streaming}
        // Focusable so that keyboard users can scroll back through the conversation.
        tabIndex={0}
        direction="column"
        gap="3"
        h={h}
        overflowY="auto"
        // At either end of the conversation a wheel or a drag stays here: it never scrolls the page (or host page).
        overscrollBehavior="contain"
        p="3"
        // Room below the newest message for the buttons over the list's bottom edge (Stop, Jump to latest),
        // always kept so that nothing in the list moves when they come and go.
        pb="14"
        rounded="md"
        borderWidth="1px"
        onScroll={onScroll}
      >
        {/* The site's welcome: first in every conversation, but no message of it (never sent to the model). */}
        {welcome !== undefined && <MessageBubble text={welcome} sender="bot" welcome />}
        <Starters />
        {groups.map((start) => (
          // The list only ever grows at its end, so a group's first index is a stable identity.
          <MessageGroup key={start} messages={rows} start={start} end={Math.min(start + GROUP_SIZE, rows.length)} />
        ))}
        {replyStatus && <replyStatus.ConversationEnd />}
      </Flex>
      <Flex
        position="absolute"
        bottom="3"
        insetX="0"
        justify="center"
        gap="2"
        // Only the buttons take the pointer: the rest of the strip lets the visitor select and scroll the text under it.
        pointerEvents="none"
        css={{ '& > *': { pointerEvents: 'auto' } }}
      >
        {behind && (
          <RecipeButton size="sm" variant="surface" shadow="sm" onClick={jumpToLatest}>
            {t('jumpToLatest')}
          </RecipeButton>
        )}
        {replyStatus && <replyStatus.StopButton />}
      </Flex>
      {replyStatus && <replyStatus.HandoffPanel />}
    </Box>
  );
}

/**
 * Whether the list follows new text, and the visitor's way back to the end. Decided only by positions: a scroll event
 * that finds the list where the app last put it is the app's own (even if more text has arrived since, so that the
 * end has moved on); any other position is the visitor's, who follows again once back at the end.
 */
function useFollowEnd(messages: readonly MessageBubbleProps[], reply: string) {
  const listRef = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const appScrollTop = useRef(0);
  const [behind, setBehind] = useState(false);

  const scrollToEnd = (list: HTMLElement) => {
    list.scrollTop = list.scrollHeight;
    appScrollTop.current = list.scrollTop;
  };

  // The visitor's own message (sent, or asked for again) always brings the end into view: they have just acted there.
  useLayoutEffect(() => {
    if (messages.at(-1)?.sender === 'user') following.current = true;
  }, [messages]);

  // In the next frame rather than straight after the commit: reading scrollHeight forces a layout, and right after a
  // send that would hold up the request, which starts only once React has rendered the visitor's message.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs each time the content grows, a message or a piece.
  useEffect(() => {
    const list = listRef.current;
    if (!list || messages.length === 0) return;
    const frame = requestAnimationFrame(() => {
      if (following.current) scrollToEnd(list);
      else setBehind(!isAtEnd(list));
    });
    return () => cancelAnimationFrame(frame);
  }, [messages.length, reply]);

  const onScroll = () => {
    const list = listRef.current;
    if (!list || Math.abs(list.scrollTop - appScrollTop.current) < 1) return;
    following.current = isAtEnd(list);
    setBehind(!following.current);
  };

  const jumpToLatest = () => {
    const list = listRef.current;
    if (!list) return;
    following.current = true;
    scrollToEnd(list);
    setBehind(false);
  };

  return { listRef, behind, onScroll, jumpToLatest };
}

interface MessageGroupProps {
  /** The whole conversation; the group shows `messages[start]` up to, not including, `messages[end]`. */
  messages: readonly MessageBubbleProps[];
  start: number;
  end: number;
}

/** A full group's messages never change once appended, so it skips rendering while the conversation grows. */
function sameGroup(previous: MessageGroupProps, next: MessageGroupProps): boolean {
  if (previous.start !== next.start || previous.end !== next.end) return false;
  for (let index = previous.start; index < previous.end; index += 1) {
    if (previous.messages[index] !== next.messages[index]) return false;
  }
  return true;
}

const MessageGroup = memo(function MessageGroup({ messages, start, end }: MessageGroupProps) {
  const bubbles = [];
  for (let index = start; index < end; index += 1) {
    const message = messages[index];
    // Append-only between retries (a retry drops only the last messages), so an index is a stable identity. A fault in
    // one message leaves that message as plain text and the rest of the card working.
    bubbles.push(
      <FaultBoundary key={index} fallback={<PlainMessage text={message.text} sender={message.sender} />}>
        <MessageBubble {...message} />
      </FaultBoundary>,
    );
  }
  return (
    <Flex direction="column" gap="3" css={{ contain: 'content' }}>
      {bubbles}
    </Flex>
  );
}, sameGroup);

/** A message that could not be shown otherwise: its text, as text. */
function PlainMessage({ text, sender }: Pick<MessageBubbleProps, 'text' | 'sender'>) {
  return (
    <Box data-sender={sender} dir="auto" whiteSpace="pre-wrap" overflowWrap="anywhere">
      <PlainText text={text} sender={sender} />
    </Box>
  );
}
