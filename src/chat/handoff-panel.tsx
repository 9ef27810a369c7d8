import { Box } from '@chakra-ui/react';
import { useLayoutEffect, useRef } from 'react';
import { useCloseHandoff, useHandoffForm, useHandoffOpener, useHandoffSentText } from './handoff-offer';

/**
 * The card's "Contact a person" form while it is open: over the conversation, inside the card (no modal), at the
 * conversation's height, so that the card keeps its size and the conversation's live region stays out of the form.
 */
export function HandoffPanel() {
  const opener = useHandoffOpener();
  const close = useCloseHandoff();
  return opener ? <OpenForm onClose={close} /> : null;
}

function OpenForm({ onClose }: { onClose: () => void }) {
  // Loaded before the form opens (handoff-offer.tsx): at hand here.
  const handoffForm = useHandoffForm();
  const panel = useRef<HTMLDivElement>(null);
  // What the form covers (the conversation, Jump to latest, Stop) is out of reach meanwhile: Tab goes from the form to
  // the card's other controls, never to a button hidden under it.
  useLayoutEffect(() => {
    if (!handoffForm) return;
    const covered = [...(panel.current?.parentElement?.children ?? [])].filter((child) => child !== panel.current);
    for (const element of covered) element.setAttribute('inert', '');
    return () => {
      for (const element of covered) element.removeAttribute('inert');
    };
  }, [handoffForm]);
  if (!handoffForm) return null;
  return (
    <Box
      ref={panel}
      position="absolute"
      inset="0"
      zIndex="1"
      bg="bg.panel"
      p="3"
      rounded="md"
      borderWidth="1px"
      overflowY="auto"
      overscrollBehavior="contain"
    >
      <handoffForm.HandoffForm onClose={onClose} />
    </Box>
  );
}

/**
 * "Sent. We will reply to {email} by email{ within …}.", at the end of the conversation once a message went to the
 * site's people: in the conversation's polite live region, which announces it.
 */
export function HandoffSent() {
  const text = useHandoffSentText();
  if (text === undefined) return null;
  return (
    <Box as="p" data-handoff-sent fontSize="sm" color="fg.muted">
      {text}
    </Box>
  );
}
