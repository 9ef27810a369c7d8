// The messages between a host page's embed loader (embed/) and the framed app (src/). No imports: both sides use it.

/** Every message carries this namespace and version, so neither side mistakes another script's messages for its own. */
export const EMBED_NAMESPACE = 'ai-assistant';
export const EMBED_VERSION = 1;

/**
 * What the two sides say: the app is `ready` (loaded, listening), asks to `close` (its close button, Escape) or says
 * that the visitor sent a `message` (never its text) or voted on a reply (`feedback`, whose `detail` holds the vote's
 * `rating` and `reason`) or sent a message to a person (`handoff`, nothing of it): the loader passes each on to the host page as an event; the loader says the panel is `open` (the app then focuses its
 * input). With the site's settings the app also says `keep` (`persist: tab`: the loader then keeps whether the panel is
 * open for the tab's next page) and asks for the `page` (`page_context`), which the loader answers with a `page` message
 * carrying the host page's `path` and `title`. The loader tells the app `identify` with the visitor's `token` from the
 * site (`AIAssistant.identify`) whenever the site gives one, and again on each `ready`.
 */
export const EMBED_MESSAGE_TYPES = [
  'ready',
  'close',
  'open',
  'message',
  'feedback',
  'handoff',
  'keep',
  'page',
  'identify',
] as const;
export type EmbedMessageType = (typeof EMBED_MESSAGE_TYPES)[number];

export interface EmbedMessage {
  ns: typeof EMBED_NAMESPACE;
  v: typeof EMBED_VERSION;
  type: EmbedMessageType;
}

// Arrow functions, not declarations: the loader's minifier writes them shorter (bytes of its budget).

/** The message of `type`, ready for `postMessage`. */
export const embedMessage = (type: EmbedMessageType): EmbedMessage => ({ ns: EMBED_NAMESPACE, v: EMBED_VERSION, type });

/**
 * The type of a message of ours in this version, or `undefined` for anything else. A type the loader does not know is
 * returned as it is and matches none of its cases, which keeps the check small there; the app checks the type itself
 * ({@link EMBED_MESSAGE_TYPES}).
 */
export const embedMessageType = (message: Partial<EmbedMessage> | null | undefined): EmbedMessageType | undefined =>
  message?.ns === EMBED_NAMESPACE && message.v === EMBED_VERSION ? message.type : undefined;
