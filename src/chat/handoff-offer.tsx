import { useCallback, useState, useSyncExternalStore } from 'react';
import type { ChatMessage } from '../../machines/chat-machine';
import { lazyModule, useLazyModule } from '../lazy-module';
import { readPageSettings } from '../page-settings';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { handoffSent } from './handoff-sent';

// "Contact a person" (the site's `handoff:`): what the reply actions and the card's header share. In their lazy chunks,
// never at start-up; the form itself is a chunk of its own, loaded when the visitor first opens it.
//
// Its state is kept here, per chat, rather than in the chat machine, whose every byte is start-up JavaScript: which
// button opened the form, and the message that went in this conversation. A conversation is known by its first
// message: New conversation empties the list, and the next first message is another object (a retry or a reply keeps
// it), so a new conversation offers the form again without being told.

const form = lazyModule(() => import('./handoff-form'));

/** The form's chunk once loaded (asked for when first opened), `undefined` until then. */
export const useHandoffForm = () => useLazyModule(form);

type ChatActor = ReturnType<typeof ChatActorContext.useActorRef>;

interface HandoffState {
  /** The button that opened the card's form (the focus goes back to it); unset while the form is closed. */
  opener?: HTMLElement;
  /** The address a message went from, and the first message of the conversation it went in. */
  sent?: { email: string; conversation: ChatMessage | undefined };
}

interface HandoffStore {
  state: HandoffState;
  listeners: Set<() => void>;
}

const stores = new WeakMap<ChatActor, HandoffStore>();

function storeOf(actor: ChatActor): HandoffStore {
  let store = stores.get(actor);
  if (!store) {
    store = { state: {}, listeners: new Set() };
    stores.set(actor, store);
  }
  return store;
}

function update(actor: ChatActor, change: Partial<HandoffState>): void {
  const store = storeOf(actor);
  store.state = { ...store.state, ...change };
  for (const listener of store.listeners) listener();
}

function useHandoffState(): HandoffState {
  const store = storeOf(ChatActorContext.useActorRef());
  const subscribe = useCallback(
    (listener: () => void) => {
      store.listeners.add(listener);
      return () => store.listeners.delete(listener);
    },
    [store],
  );
  return useSyncExternalStore(subscribe, () => store.state);
}

/** The button that opened the card's form, `undefined` while it is closed. */
export const useHandoffOpener = (): HTMLElement | undefined => useHandoffState().opener;

/**
 * Opens the card's form for the button `opener`, once the form's chunk is in (a chunk that cannot be fetched leaves
 * the form closed, and the next click tries again).
 */
export function useOpenHandoff(): (opener: HTMLElement) => void {
  const actor = ChatActorContext.useActorRef();
  return (opener) => {
    form.load().then(
      () => update(actor, { opener }),
      () => undefined,
    );
  };
}

/**
 * Closes the card's form. The focus goes back to the button that opened it, or, when that is gone (the message was
 * sent, and the button is offered no more), to the message box.
 */
export function useCloseHandoff(): () => void {
  const actor = ChatActorContext.useActorRef();
  return () => {
    const { opener } = storeOf(actor).state;
    update(actor, { opener: undefined });
    // After the render that takes the form out and, on a success, the button with it. One card per document: the
    // page's, or the embed's frame's.
    requestAnimationFrame(() =>
      (opener?.isConnected ? opener : document.querySelector<HTMLElement>('input[name="message"]'))?.focus(),
    );
  };
}

/** Records that the server took a message from `email` in the current conversation. */
export function useRecordHandoff(): (email: string) => void {
  const actor = ChatActorContext.useActorRef();
  return (email) => {
    update(actor, { sent: { email, conversation: actor.getSnapshot().context.messages[0] } });
    handoffSent.dispatchEvent(new Event('sent'));
  };
}

/** The address a message went from in this conversation, if one did. */
function useSentFrom(): string | undefined {
  const { sent } = useHandoffState();
  const conversation = ChatActorContext.useSelector((snapshot) => snapshot.context.messages[0]);
  return sent && sent.conversation === conversation ? sent.email : undefined;
}

/**
 * Whether the card offers "Contact a person": the site has a `handoff:` block, and no message went to its people in
 * this conversation yet (a New conversation offers it again).
 */
export function useHandoffOffered(): boolean {
  const [handoff] = useState(() => readPageSettings(document).handoff);
  const sentFrom = useSentFrom();
  return handoff !== undefined && sentFrom === undefined;
}

/** "Sent. We will reply to {email} by email{ within …}.", once a message went in this conversation. */
export function useHandoffSentText(): string | undefined {
  const [replyWithin] = useState(() => readPageSettings(document).handoff?.replyWithin);
  const email = useSentFrom();
  if (email === undefined) return undefined;
  return t(replyWithin ? 'handoffSentWithin' : 'handoffSent')
    .replace('{email}', email)
    .replace('{within}', replyWithin ?? '');
}

/** The icon of "Contact a person": a person. */
export const PERSON_ICON = 'M12 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21v-1a6 6 0 0 1 6-6h4a6 6 0 0 1 6 6v1';
