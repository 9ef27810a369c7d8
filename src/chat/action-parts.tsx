import { Box, Flex } from '@chakra-ui/react';
import { useEffect, useRef } from 'react';
import { ACTIONS_CONFIRM_PATH, type ActionNote } from '../../contract/actions';
import type { ChatMessage, ShownConfirmation } from '../../machines/chat-machine';
import { serverPath } from '../llm/server-path';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton } from './controls';

// What a reply shows of the site's actions (issue 49), in the reply-status chunk: a line for each action the server
// called, and a write the model proposed with Confirm and Cancel. Every text here is the server's plain text (the
// owner's templates filled with checked inputs) or the catalogue's: nothing the model wrote, and never Markdown.

/** A reply's notes, then the write it proposed. */
export function ActionParts({ actions, confirmation }: Pick<ChatMessage, 'actions' | 'confirmation'>) {
  return (
    <>
      {actions && <ActionNotes notes={actions} />}
      {confirmation && <ConfirmationBox confirmation={confirmation} />}
    </>
  );
}

/** One line per action called, which opens to the inputs it was called with. */
function ActionNotes({ notes }: { notes: readonly ActionNote[] }) {
  return (
    <Flex direction="column" gap="1" data-action-notes>
      {notes.map((note, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a reply's notes never change once shown.
        <Box as="details" key={index} fontSize="sm" color="fg.muted" maxW="xs">
          <Box as="summary" cursor="pointer" dir="auto">
            {note.failed ? `${note.text}: ${t('actionFailed')}` : note.text}
          </Box>
          <Box as="dl" ps="4">
            {Object.entries(note.inputs).map(([name, value]) => (
              <Box key={name} dir="auto">
                <Box as="dt" display="inline">{`${name}: `}</Box>
                <Box as="dd" display="inline">
                  {String(value)}
                </Box>
              </Box>
            ))}
          </Box>
        </Box>
      ))}
    </Flex>
  );
}

/**
 * The owner's confirmation text under the reply that proposed it, in the conversation rather than a dialog. While the
 * chat is `confirming` (the last message's confirmation, not yet settled) it has Confirm and Cancel and takes the focus;
 * once settled it says what the visitor chose.
 */
function ConfirmationBox({ confirmation }: Required<Pick<ChatMessage, 'confirmation'>>) {
  const actor = ChatActorContext.useActorRef();
  useCancelReport(confirmation);
  const pending = ChatActorContext.useSelector(
    (snapshot) =>
      snapshot.matches('confirming') && snapshot.context.messages.at(-1)?.confirmation?.token === confirmation.token,
  );
  const boxRef = useRef<HTMLDivElement>(null);
  // The focus lands on the group: its description is the owner's text, so that a screen reader says what would be done.
  // Named by its token (no useId: that would add an export to the start-up chunk for this lazy one).
  const textId = `confirmation-${confirmation.token.slice(-16)}`;
  const outcome = confirmation.outcome;
  const wasPending = useRef(pending);
  useEffect(() => {
    if (pending) boxRef.current?.focus();
    // Cancel went, and the focus with it: the message box takes it, for the visitor to type on (as after a reply).
    const focused = document.activeElement;
    if (wasPending.current && outcome === 'cancelled' && (!focused || focused === document.body)) {
      document.querySelector<HTMLElement>('input[name="message"]')?.focus();
    }
    wasPending.current = pending;
  }, [pending, outcome]);
  return (
    <Box
      ref={boxRef}
      role="group"
      aria-label={t('confirmation')}
      aria-describedby={textId}
      tabIndex={-1}
      data-confirmation={outcome ?? 'pending'}
      maxW="xs"
      p="3"
      rounded="lg"
      borderWidth="1px"
      outline="none"
      _focusVisible={{ outline: '2px solid', outlineColor: 'accent.solid' }}
    >
      <Box as="p" id={textId} dir="auto" whiteSpace="pre-wrap" overflowWrap="anywhere">
        {confirmation.text}
      </Box>
      {pending ? (
        <Flex gap="2" mt="2">
          <RecipeButton size="sm" colorPalette="accent" onClick={() => actor.send({ type: 'action.confirm' })}>
            {t('confirm')}
          </RecipeButton>
          <RecipeButton size="sm" variant="outline" onClick={() => actor.send({ type: 'action.cancel' })}>
            {t('cancel')}
          </RecipeButton>
        </Flex>
      ) : (
        <Box as="p" mt="1" fontSize="sm" fontStyle="italic" color="fg.muted">
          {t(outcome === 'confirmed' ? 'actionConfirmed' : 'actionCancelled')}
        </Box>
      )}
    </Box>
  );
}

/**
 * Tells the server of a write the visitor cancelled here (Cancel, or a new message while it waited): the token is then
 * used up and the owner's counts say it was cancelled. Only a change seen while shown counts: a conversation kept for
 * the tab that comes back with one cancelled already says nothing again. Nothing waits for the answer.
 */
function useCancelReport({ outcome, token, conversation }: ShownConfirmation) {
  const shownAs = useRef(outcome);
  useEffect(() => {
    if (shownAs.current === outcome) return;
    shownAs.current = outcome;
    if (outcome !== 'cancelled') return;
    fetch(serverPath(ACTIONS_CONFIRM_PATH), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cancel: true, confirmation: token, conversation }),
      keepalive: true,
    }).catch(() => undefined);
  }, [outcome, token, conversation]);
}
