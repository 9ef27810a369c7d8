import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton, TextInput } from './controls';

/** The text box and the Send button. Every keystroke and click goes to the machine; it decides. */
export function Composer() {
  const actorRef = ChatActorContext.useActorRef();
  const draft = ChatActorContext.useSelector((snapshot) => snapshot.context.draft);
  const sending = ChatActorContext.useSelector((snapshot) => snapshot.matches('sending'));
  // While a write waits for the visitor's Confirm, the box says what to do (and a new message cancels it).
  const placeholder = ChatActorContext.useSelector((snapshot) =>
    snapshot.matches('confirming') ? 'confirmOrType' : sending ? 'sending' : 'placeholder',
  );
  const formRef = useRef<HTMLFormElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // How many replies have ended: the machine says when (`reply.ended`), whichever way one ended.
  const [repliesEnded, setRepliesEnded] = useState(0);

  useEffect(() => {
    const subscription = actorRef.on('reply.ended', () => setRepliesEnded((count) => count + 1));
    return () => subscription.unsubscribe();
  }, [actorRef]);

  // The input was disabled (and so lost focus) while sending: give it back once the reply has ended (this runs after
  // the render that enabled it), unless the visitor has meanwhile put the focus somewhere else (say, on the
  // conversation, to read back).
  useEffect(() => {
    if (repliesEnded === 0) return;
    const focused = document.activeElement;
    const focusWasOurs = !focused || focused === document.body || formRef.current?.contains(focused);
    if (focusWasOurs) inputRef.current?.focus();
  }, [repliesEnded]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    actorRef.send({ type: 'message.submit' });
  };

  // Enter that confirms an IME composition chooses characters; it must not send the message.
  const ignoreComposingEnter = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.nativeEvent.isComposing || event.keyCode === 229)) {
      event.preventDefault();
    }
  };

  return (
    // `dialog`: a form outside a dialog then submits nowhere, so Enter in the card served before the script has run does
    // not reload the page with the message in its address.
    <form ref={formRef} method="dialog" onSubmit={submit} style={{ display: 'flex', gap: '0.5rem', width: '100%' }}>
      <TextInput
        ref={inputRef}
        name="message"
        aria-label={t('message')}
        autoComplete="off"
        // Below 16px, iOS zooms the page in when the box gets the focus.
        fontSize={{ base: 'md', md: 'sm' }}
        placeholder={t(placeholder)}
        value={draft}
        onChange={(event) => actorRef.send({ type: 'draft.change', text: event.target.value })}
        onKeyDown={ignoreComposingEnter}
        disabled={sending}
      />
      <RecipeButton type="submit" colorPalette="accent" _hover={{ bg: 'accent.hover' }} disabled={sending}>
        {t('send')}
      </RecipeButton>
    </form>
  );
}
