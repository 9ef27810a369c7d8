import type { ActorRefFrom } from 'xstate';
import { isReplySource } from '../../contract/reply-sources';
import { type ChatMessage, type chatMachine, type ReplyStatus, stoppedReply } from '../../machines/chat-machine';

// The conversation kept for the tab (the site's `persist: tab`): in session storage only, so never shared with another
// tab nor kept after it closes. What is stored is a versioned shape, checked on every read by the small checker below
// (valibot would weigh on the page's start-up code for one shape).

/** Where the conversation is kept, in the app origin's session storage. */
export const KEPT_CONVERSATION_KEY = 'ai-assistant-conversation';
/**
 * The shape's version: data of any other version is dropped, never misread. Version 2: a bot message says what it is by
 * its `status` (version 1 had only `stopped`, and a failure was known by its text, in the language of the page that
 * wrote it).
 */
export const KEPT_CONVERSATION_VERSION = 2;
/** Every status a bot message can have (the machine's `ReplyStatus`), to check what is read back. */
const REPLY_STATUSES: readonly ReplyStatus[] = ['answer', 'empty', 'failed', 'stopped'];
/** The most messages kept: the last ones. */
export const MAX_KEPT_MESSAGES = 50;
/** The most characters read back: more is not a conversation this page wrote. */
export const MAX_KEPT_CHARACTERS = 500_000;

interface KeptConversation {
  v: typeof KEPT_CONVERSATION_VERSION;
  messages: ChatMessage[];
}

function isMessage(value: unknown): value is ChatMessage {
  const message = value as Partial<ChatMessage> | null;
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof message.text === 'string' &&
    // A visitor's message has no status; a bot message always has one.
    (message.sender === 'user'
      ? message.status === undefined
      : message.sender === 'bot' && (REPLY_STATUSES as readonly unknown[]).includes(message.status)) &&
    (message.sources === undefined || (Array.isArray(message.sources) && message.sources.every(isReplySource)))
  );
}

/** A checked message with nothing but its own fields, as the machine makes them. */
function ownFields({ text, sender, status, sources }: ChatMessage): ChatMessage {
  return {
    text,
    sender,
    ...(status ? { status } : {}),
    ...(sources?.length ? { sources: sources.map(({ n, title, url }) => ({ n, title, url })) } : {}),
  };
}

/** Whether `data` is a kept conversation of this version, of at most `MAX_KEPT_MESSAGES` well-formed messages. */
function isKeptConversation(data: unknown): data is KeptConversation {
  const kept = data as Partial<KeptConversation> | null;
  return (
    typeof kept === 'object' &&
    kept !== null &&
    kept.v === KEPT_CONVERSATION_VERSION &&
    Array.isArray(kept.messages) &&
    kept.messages.length <= MAX_KEPT_MESSAGES &&
    kept.messages.every(isMessage)
  );
}

/**
 * The tab's kept conversation, or `undefined` when there is none. Data that is corrupt, of another version or too
 * large is dropped with a warning: the visitor gets an empty, working chat.
 */
export function readKeptConversation(
  storage: Storage | undefined = sessionStorageOrNothing(),
): ChatMessage[] | undefined {
  const text = storage?.getItem(KEPT_CONVERSATION_KEY);
  if (!text) return undefined;
  let data: unknown;
  try {
    data = text.length <= MAX_KEPT_CHARACTERS ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (isKeptConversation(data)) {
    return data.messages.map(ownFields);
  }
  console.warn('The kept conversation could not be read (corrupt, of another version or too large): it is dropped.');
  storage?.removeItem(KEPT_CONVERSATION_KEY);
  return undefined;
}

/** Keeps `messages` (the last `MAX_KEPT_MESSAGES`), or removes what is kept when there are none. A full quota is survived. */
export function writeKeptConversation(
  messages: readonly ChatMessage[],
  storage: Storage | undefined = sessionStorageOrNothing(),
): void {
  if (!storage) return;
  if (messages.length === 0) {
    storage.removeItem(KEPT_CONVERSATION_KEY);
    return;
  }
  const kept: KeptConversation = { v: KEPT_CONVERSATION_VERSION, messages: messages.slice(-MAX_KEPT_MESSAGES) };
  try {
    storage.setItem(KEPT_CONVERSATION_KEY, JSON.stringify(kept));
  } catch (error) {
    // QuotaExceededError: the conversation goes on in the page; what was kept before stays as it was.
    console.warn('The conversation could not be kept for the next page:', error);
  }
}

/**
 * Keeps the conversation of `actor` as it changes. A reply still coming in is kept as a stopped one with what had
 * arrived: if the page changes now, the next page shows it stopped, with Retry, and the box usable at once.
 */
export function keepConversation(
  actor: ActorRefFrom<typeof chatMachine>,
  storage: Storage | undefined = sessionStorageOrNothing(),
): () => void {
  const keep = () => {
    const snapshot = actor.getSnapshot();
    const { messages } = snapshot.context;
    writeKeptConversation(
      snapshot.matches('sending') ? [...messages, stoppedReply(snapshot.context)] : messages,
      storage,
    );
  };
  // Written when the messages change or a reply starts or ends. The machine replaces its messages, never changes them in
  // place: a snapshot with the same ones (a keystroke in the box, a piece of a reply) has nothing new to keep. A reply's
  // pieces are kept once, as the page is left (`pagehide`, which the frame gets too when the host page changes), rather
  // than serialising the whole conversation many times a second while it streams. What the page shows then is what the
  // next page gets: leaving cuts the reply's request off, which the machine would take for an error, and that is not
  // kept (until the page is shown again, from the back-forward cache).
  let last: unknown[] = [];
  let leaving = false;
  const subscription = actor.subscribe((snapshot) => {
    const seen = [snapshot.context.messages, snapshot.matches('sending')];
    if (leaving || seen.every((value, index) => value === last[index])) return;
    last = seen;
    keep();
  });
  const leave = () => {
    if (actor.getSnapshot().matches('sending')) keep();
    leaving = true;
  };
  const back = () => {
    leaving = false;
  };
  addEventListener('pagehide', leave);
  addEventListener('pageshow', back);
  return () => {
    subscription.unsubscribe();
    removeEventListener('pagehide', leave);
    removeEventListener('pageshow', back);
  };
}

/** The page's session storage, or nothing where the browser refuses it (storage blocked): then nothing is kept. */
function sessionStorageOrNothing(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}
