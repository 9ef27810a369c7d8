import { Box, Flex } from '@chakra-ui/react';
import { memo } from 'react';
import type { ChatMessage } from '../../machines/chat-machine';
import { withoutBidiControls } from '../markdown/bidi-controls';
import { useMarkdown } from '../markdown/load-markdown';
import { t } from '../text';
import { FaultBoundary } from './fault-boundary';
import { useReplyStatus } from './reply-status';

/**
 * A message's text as text: a visitor's as typed, a reply's without its bidirectional controls. Worked out only when
 * shown (a fault boundary's fallback rarely is).
 */
export function PlainText({ text, sender }: Pick<ChatMessage, 'text' | 'sender'>) {
  return sender === 'user' ? text : withoutBidiControls(text);
}

export interface MessageBubbleProps extends ChatMessage {
  /** The reply is still streaming in. */
  streaming?: boolean;
  /** The site's welcome: shown as Markdown, but no reply, so nothing to copy. */
  welcome?: boolean;
}

/**
 * One message. Memoised: messages never change once appended, so a new one re-renders only itself (a reply that is
 * streaming in re-renders as it grows).
 * A visitor's message, and any message until the Markdown renderer has loaded, is a React text node: markup in it is
 * shown, never interpreted. A bot reply then renders as safe Markdown, with a Copy button once complete (the welcome
 * has none); the machine's own texts (an empty or failed reply, known by its status: the spec's two status texts in
 * English) stay plain. A reply's bidirectional controls are never rendered, and a reply whose rendering fails shows as
 * plain text.
 */
export const MessageBubble = memo(function MessageBubble({
  text,
  sender,
  status,
  streaming,
  welcome,
  sources,
  feedback,
  actions,
  confirmation,
}: MessageBubbleProps) {
  const fromUser = sender === 'user';
  const markdown = useMarkdown();
  const replyStatus = useReplyStatus();
  const rich = markdown && !fromUser && status !== 'empty' && status !== 'failed';
  const stopped = status === 'stopped';
  const plain = <PlainText text={text} sender={sender} />;
  return (
    <Flex direction="column" align={fromUser ? 'flex-end' : 'flex-start'} gap="1">
      <Box as="span" srOnly>
        {t(fromUser ? 'you' : 'assistant')}
      </Box>
      {/* A reply stopped before its first piece has no text: the note alone says what happened. */}
      {(text !== '' || !stopped) && (
        <Box
          data-sender={sender}
          // A message in another direction than the page's (a Latin reply on an Arabic page) reads in its own.
          dir="auto"
          maxW="xs"
          px="3"
          py="2"
          rounded="lg"
          bg={fromUser ? 'accent.solid' : 'bot'}
          color={fromUser ? 'accent.contrast' : 'bot.fg'}
          whiteSpace="pre-wrap"
          overflowWrap="anywhere"
        >
          {rich ? (
            <FaultBoundary fallback={plain}>
              <markdown.RichReply text={text} partial={streaming || stopped} sources={sources} />
            </FaultBoundary>
          ) : (
            plain
          )}
        </Box>
      )}
      {/* Copy and the votes right beside the bubble they are about, the Sources list after them. */}
      {rich && !streaming && !welcome && text !== '' && (
        <FaultBoundary fallback={null}>
          <markdown.ReplyActions text={text} sources={sources} feedback={feedback} />
        </FaultBoundary>
      )}
      {rich && text !== '' && sources && sources.length > 0 && (
        <FaultBoundary fallback={null}>
          <markdown.SourceList sources={sources} text={text} />
        </FaultBoundary>
      )}
      {/* What the site's actions did for this reply, and a write it proposed. */}
      {replyStatus && (actions || confirmation) && (
        <replyStatus.ActionParts actions={actions} confirmation={confirmation} />
      )}
      {stopped && (
        <Box as="p" data-stopped fontSize="sm" fontStyle="italic" color="fg.muted">
          {t('stopped')}
        </Box>
      )}
    </Flex>
  );
});
