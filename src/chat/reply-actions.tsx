import { Box, Flex } from '@chakra-ui/react';
import { useEffect, useState } from 'react';
import { FEEDBACK_PATH, type FeedbackBody, type FeedbackRating, type FeedbackReason } from '../../contract/feedback';
import type { ReplySource } from '../../contract/llm';
import type { MessageKey } from '../../locales/catalogue';
import type { ReplyFeedback } from '../../machines/chat-machine';
import { serverPath } from '../llm/server-path';
import { citedInOrder } from '../markdown/citations';
import { CopyButton } from '../markdown/copy-button';
import { StrokeIcon } from '../markdown/stroke-icon';
import { readPageSettings } from '../page-settings';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';
import { PERSON_ICON, useHandoffOffered, useOpenHandoff } from './handoff-offer';

/** The five reasons for a Not helpful, in the order offered. */
const REASONS: [FeedbackReason, MessageKey][] = [
  ['wrong', 'reasonWrong'],
  ['outdated', 'reasonOutdated'],
  ['unclear', 'reasonUnclear'],
  ['off_topic', 'reasonOffTopic'],
  ['other', 'reasonOther'],
];

// Each chat's votes go to the server once, however many replies show their buttons.
const sending = new WeakSet<object>();

/**
 * Tells the server each vote the machine takes (`reply.voted`): the reply's token, the vote and, for a Not helpful, the
 * numbers of the sources the reply cites (what it counts against), never a word of the conversation. The server's
 * answer goes back to the machine (`reply.voteSettled`), which the buttons show: a vote that cannot be counted is
 * said, never retried.
 */
function sendVotes(actor: ReturnType<typeof ChatActorContext.useActorRef>) {
  if (sending.has(actor)) return;
  sending.add(actor);
  actor.on('reply.voted', (voted) => {
    const { token, rating, reason } = voted;
    const body: FeedbackBody = { reply: token, rating, ...(reason ? { reason } : {}) };
    const message = actor.getSnapshot().context.messages.find((shown) => shown.feedback?.token === token);
    const cited = citedInOrder(message?.text ?? '', message?.sources ?? []).map(({ n }) => n);
    if (rating === 'down' && cited.length > 0) body.cited = cited;
    fetch(serverPath(FEEDBACK_PATH), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      keepalive: true,
    })
      .then(
        (response) => (response.ok ? 'counted' : 'refused'),
        () => 'refused' as const,
      )
      .then((outcome) => actor.send({ type: 'reply.voteSettled', token, rating, reason, outcome }));
  });
}

/**
 * A reply as Copy puts it on the clipboard: with the sources it cites after it, so that its `[n]` still say where from.
 */
function withSources(text: string, sources: readonly ReplySource[] | undefined): string {
  const cited = citedInOrder(text, sources ?? []).sort((a, b) => a.n - b.n);
  if (cited.length === 0) return text;
  return `${text}\n\n${t('sources')}:\n${cited.map(({ n, title, url }) => `[${n}] ${title} — ${url}`).join('\n')}`;
}

/**
 * Beside a finished reply: Copy (the reply with its sources) and, for a reply the page's own server gave (it came with
 * a token), Helpful and Not helpful (`aria-pressed` says which is chosen, and the chosen one is filled with the
 * accent; a second click on another replaces the vote), then "Thanks" once the server counted it, or that it could
 * not be, said politely. After Not helpful, the five reasons (optional, no free text; the chosen one filled and
 * ticked), and the site's `contact:` link, which also shows under a reply its pages did not cover; with the site's
 * `handoff:`, "Contact a person" instead (the card's form), until a message went in this conversation. Icon buttons
 * with names, as Copy: the conversation's live region reads the reply without them.
 */
export function ReplyActions({
  text,
  sources,
  feedback,
}: {
  text: string;
  sources?: readonly ReplySource[];
  feedback?: ReplyFeedback;
}) {
  const copied = withSources(text, sources);
  return (
    <Flex direction="column" align="flex-start" gap="1">
      {feedback ? <Votes text={copied} feedback={feedback} /> : <CopyButton text={copied} />}
    </Flex>
  );
}

/** Copy, the two votes, the reasons and the contact link (or "Contact a person") of a reply with a token. */
function Votes({ text, feedback }: { text: string; feedback: ReplyFeedback }) {
  const actorRef = ChatActorContext.useActorRef();
  const [{ contact, handoff }] = useState(() => readPageSettings(document));
  const personOffered = useHandoffOffered();
  const openHandoff = useOpenHandoff();
  useEffect(() => sendVotes(actorRef), [actorRef]);
  const vote = (rating: FeedbackRating, reason?: FeedbackReason) =>
    actorRef.send({ type: 'reply.vote', token: feedback.token, rating, ...(reason ? { reason } : {}) });
  const rated = feedback.rating;
  return (
    <>
      <Flex align="center" gap="1" wrap="wrap">
        <CopyButton text={text} />
        <VoteButton label={t('helpful')} pressed={rated === 'up'} onClick={() => vote('up')} path={THUMB_UP} />
        <VoteButton
          label={t('notHelpful')}
          pressed={rated === 'down'}
          onClick={() => vote('down', feedback.reason)}
          path={THUMB_DOWN}
        />
        {/* In the page before any vote, so that what it comes to say is announced. */}
        <Box role="status" fontSize="sm" color="fg.muted" ps="1">
          {feedback.outcome && t(feedback.outcome === 'counted' ? 'voteThanks' : 'voteRefused')}
        </Box>
      </Flex>
      {rated === 'down' && (
        <Flex role="group" aria-label={t('whyNotHelpful')} gap="1" wrap="wrap" maxW="xs">
          {REASONS.map(([code, key]) => (
            <RecipeButton
              key={code}
              size="2xs"
              {...(feedback.reason === code ? CHOSEN : { variant: 'outline' })}
              aria-pressed={feedback.reason === code}
              // A second click on the chosen reason takes it back: the vote stays, without a reason.
              onClick={() => vote('down', feedback.reason === code ? undefined : code)}
            >
              {feedback.reason === code && (
                <StrokeIcon>
                  <path d={TICK} />
                </StrokeIcon>
              )}
              {t(key)}
            </RecipeButton>
          ))}
        </Flex>
      )}
      {(rated === 'down' || feedback.uncovered) &&
        (handoff
          ? personOffered && (
              <RecipeButton size="2xs" variant="outline" onClick={(event) => openHandoff(event.currentTarget)}>
                <StrokeIcon>
                  <path d={PERSON_ICON} />
                </StrokeIcon>
                {t('contactPerson')}
              </RecipeButton>
            )
          : contact && (
              <Box fontSize="sm" css={{ '& a': { color: 'reply.link', textDecoration: 'underline' } }}>
                <a href={contact} target="_blank" rel="noopener noreferrer">
                  {t('contactUs')}
                </a>
              </Box>
            ))}
    </>
  );
}

/**
 * A chosen vote or reason: filled with the accent (3:1 against the card in both schemes, as Send), and outlined in it
 * like the reasons not chosen, so that it never looks less chosen than they do.
 */
const CHOSEN = { variant: 'solid', colorPalette: 'accent', borderWidth: '1px', borderColor: 'accent.solid' } as const;
const TICK = 'M20 6 9 17l-5-5';
const THUMB_UP = 'M7 10v11M7 10l4-8a3 3 0 0 1 3 3v4h5a2 2 0 0 1 2 2.3l-1.4 8A2 2 0 0 1 17.6 21H7H4V10h3';
const THUMB_DOWN = 'M17 14V3M17 14l-4 8a3 3 0 0 1-3-3v-4H5a2 2 0 0 1-2-2.3l1.4-8A2 2 0 0 1 6.4 3H17h3v11h-3';

function VoteButton({
  label,
  pressed,
  onClick,
  path,
}: {
  label: string;
  pressed: boolean;
  onClick: () => void;
  path: string;
}) {
  return (
    <RecipeButton
      size="2xs"
      {...(pressed ? CHOSEN : { variant: 'ghost' })}
      aria-label={label}
      title={label}
      aria-pressed={pressed}
      onClick={onClick}
    >
      <StrokeIcon>
        <path d={path} />
      </StrokeIcon>
    </RecipeButton>
  );
}
