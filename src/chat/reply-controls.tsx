import { Box, Flex } from '@chakra-ui/react';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';

/**
 * Stop while a reply is pending (Escape does the same: see escape-key.ts). It sits over the bottom of the
 * conversation rather than beside Send, so that nothing in the composer moves when it comes and goes: a second click
 * on Send lands on the disabled Send, never on Stop.
 */
export function StopButton() {
  const actorRef = ChatActorContext.useActorRef();
  const sending = ChatActorContext.useSelector((snapshot) => snapshot.matches('sending'));
  if (!sending) return null;
  return (
    <RecipeButton size="sm" variant="outline" bg="bg" shadow="sm" onClick={() => actorRef.send({ type: 'reply.stop' })}>
      {t('stop')}
    </RecipeButton>
  );
}

/**
 * Retry, under the reply that failed, timed out or was stopped: the last message, which it asks for again. After a
 * refusal by one of the server's limits, a hint says why and when to try again, and Retry stays disabled until then
 * (the machine's `idle.limited`).
 */
export function RetryRow() {
  const actorRef = ChatActorContext.useActorRef();
  const retryable = ChatActorContext.useSelector((snapshot) => snapshot.matches({ idle: 'retryable' }));
  const limit = ChatActorContext.useSelector((snapshot) => snapshot.context.limit);
  const ownMessage = ChatActorContext.useSelector((snapshot) => snapshot.context.limitMessage);
  if (!retryable && !limit) return null;
  return (
    <Flex direction="column" align="flex-start" gap="1">
      {limit && (
        <Box as="p" data-limit-hint fontSize="sm" color="fg.muted">
          {`${ownMessage ?? t(limit.reason === 'rate' ? 'limitRate' : 'limitDaily')} ${tryAgain(limit.retryAfterSeconds)}`}
        </Box>
      )}
      <RecipeButton
        size="sm"
        variant="outline"
        bg="bg"
        disabled={!retryable}
        onClick={() => actorRef.send({ type: 'reply.retry' })}
      >
        {t('retry')}
      </RecipeButton>
    </Flex>
  );
}

/**
 * "Try again in 3 minutes", in the page's language: rounded up, so that a visitor who waits that long is let in. Said
 * after a refused reply and a refused message to the site's people alike.
 */
export function tryAgain(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const [amount, unit]: [number, Intl.RelativeTimeFormatUnit] =
    retryAfterSeconds < 60
      ? [retryAfterSeconds, 'second']
      : minutes < 60
        ? [minutes, 'minute']
        : [Math.ceil(retryAfterSeconds / 3600), 'hour'];
  const when = new Intl.RelativeTimeFormat(document.documentElement.lang || 'en').format(amount, unit);
  return t('tryAgain').replace('{when}', when);
}
