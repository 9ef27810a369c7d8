// What the embed loader (embed/), the framed app (src/) and the server agree on. No imports: all of them use it.
// The messages themselves are in embed-messages.ts, so that the app's entry chunk, which needs only these names, does
// not carry the code that only its lazy embedded card uses.

/** Where the loader is served, at a fixed address: the snippet a site owner pastes cannot carry a content hash. */
export const EMBED_LOADER_PATH = '/embed.js';

/** The query parameter that tells the app it runs in the loader's frame; its value is the host page's origin. */
export const EMBED_HOST_PARAM = 'embed';
/** The query parameter that carries the loader's `data-theme` (`light`, `dark`; absent for `auto`). */
export const EMBED_THEME_PARAM = 'theme';
/** The query parameter that asks for the page in a language: the loader's `data-lang`, a BCP 47 tag. */
export const EMBED_LANG_PARAM = 'lang';

/**
 * What the built loader sets its launcher's accent to: nothing (`initial`), so the theme's own blue, whatever the host
 * page's CSS says. The server replaces this text with the site's configured `accent` in the loader it serves, as it
 * puts in the launcher's name in the visitor's language: the site's file is the accent's one source.
 */
export const EMBED_ACCENT_SENTINEL = 'initial/*accent*/';

/** The widest viewport (CSS px) on which the panel fills the screen, and is modal. */
export const EMBED_PHONE_WIDTH = 640;

/**
 * How long the loader's frame has, from its creation, to say it is ready before the panel says that the chat could not
 * load. The app says so as soon as its code has arrived; a refused frame (FRAME_ANCESTORS) or a server that is down
 * never does.
 */
export const EMBED_FRAME_TIMEOUT_MS = 5000;
