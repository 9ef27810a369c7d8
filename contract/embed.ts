// The messages between a host page's embed loader (embed/) and the framed app (src/). No imports: both sides use it.

/** Where the loader is served, at a fixed address: the snippet a site owner pastes cannot carry a content hash. */
export const EMBED_LOADER_PATH = '/embed.js';

/** The query parameter that tells the app it runs in the loader's frame; its value is the host page's origin. */
export const EMBED_HOST_PARAM = 'embed';
/** The query parameter that carries the loader's `data-theme` (`light`, `dark`; absent for `auto`). */
export const EMBED_THEME_PARAM = 'theme';

/** Every message carries this namespace and version, so neither side mistakes another script's messages for its own. */
export const EMBED_NAMESPACE = 'ai-assistant';
export const EMBED_VERSION = 1;

/**
 * What the two sides say: the app is `ready` (loaded, listening) or asks to `close` (its close button, Escape); the
 * loader says the panel is `open` (the app then focuses its input).
 */
export type EmbedMessageType = 'ready' | 'close' | 'open';

export interface EmbedMessage {
  ns: typeof EMBED_NAMESPACE;
  v: typeof EMBED_VERSION;
  type: EmbedMessageType;
}

/** The message of `type`, ready for `postMessage`. */
export function embedMessage(type: EmbedMessageType): EmbedMessage {
  return { ns: EMBED_NAMESPACE, v: EMBED_VERSION, type };
}

/** The type of a message of ours in this version, or `undefined` for anything else. */
export function embedMessageType(data: unknown): EmbedMessageType | undefined {
  const message = data as Partial<EmbedMessage> | null;
  if (typeof message !== 'object' || message === null) return undefined;
  if (message.ns !== EMBED_NAMESPACE || message.v !== EMBED_VERSION) return undefined;
  return message.type === 'ready' || message.type === 'close' || message.type === 'open' ? message.type : undefined;
}
