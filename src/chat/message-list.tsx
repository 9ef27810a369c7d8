import { Flex } from '@chakra-ui/react';
import { memo, useEffect, useRef } from 'react';
import type { ChatMessage } from '../../machines/chat-machine';
import { ChatActorContext } from './chat-actor-context';
import { MessageBubble } from './message-bubble';

/**
 * Messages per group. Each group is laid out and painted on its own (CSS containment), so that one more message
 * costs the browser about the same in a conversation of 2,000 messages as in one of 20: in a flat list Chromium lays
 * out and paints every row again on each append (about 10 ms more at 2,000 messages, plain DOM or React alike). It
 * also keeps React's work per append small: only the last group re-renders, and in it only the new bubble.
 */
const GROUP_SIZE = 50;

/** The conversation: a polite live region that scrolls itself to the newest message. */
export function MessageList() {
  const messages = ChatActorContext.useSelector((snapshot) => snapshot.context.messages);
  const listRef = useRef<HTMLDivElement>(null);

  // In the next frame rather than straight after the commit: reading scrollHeight forces a layout, and right after a
  // send that would hold up the request, which starts only once React has rendered the visitor's message.
  useEffect(() => {
    const list = listRef.current;
    if (!list || messages.length === 0) return;
    const frame = requestAnimationFrame(() => {
      list.scrollTop = list.scrollHeight;
    });
    return () => cancelAnimationFrame(frame);
  }, [messages.length]);

  const groups: number[] = [];
  for (let start = 0; start < messages.length; start += GROUP_SIZE) groups.push(start);

  return (
    <Flex
      ref={listRef}
      role="log"
      aria-live="polite"
      aria-label="Conversation"
      // Focusable so that keyboard users can scroll back through the conversation.
      tabIndex={0}
      direction="column"
      gap="3"
      h="80vh"
      overflowY="auto"
      p="3"
      rounded="md"
      borderWidth="1px"
    >
      {groups.map((start) => (
        // The list only ever grows at its end, so a group's first index is a stable identity.
        <MessageGroup
          key={start}
          messages={messages}
          start={start}
          end={Math.min(start + GROUP_SIZE, messages.length)}
        />
      ))}
    </Flex>
  );
}

interface MessageGroupProps {
  /** The whole conversation; the group shows `messages[start]` up to, not including, `messages[end]`. */
  messages: readonly ChatMessage[];
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
    // Append-only, so a message's index is a stable identity.
    bubbles.push(<MessageBubble key={index} text={message.text} sender={message.sender} />);
  }
  return (
    <Flex direction="column" gap="3" css={{ contain: 'content' }}>
      {bubbles}
    </Flex>
  );
}, sameGroup);
