// What the page receives of the site owner's configuration (assistant.config.yaml), shared by the server that writes
// it into the served HTML and the app that reads it. Plain types and constants: both sides may import it.

/** The id of the `<script type="application/json">` block that carries the page's settings in the served HTML. */
export const PAGE_SETTINGS_ID = 'ai-assistant-settings';

/**
 * What the build renders as the card's title in index.html, for the server to replace with the configured one
 * (HTML-escaped) at start-up: the first paint then shows the title the app hydrates with.
 */
export const TITLE_SENTINEL = '%AI_ASSISTANT_TITLE%';

/**
 * The CSS variable a site owner sets to brand the chat: the user's bubble, Send and the launcher read it
 * (src/theme.ts); the server sets it from the configuration's `accent`.
 */
export const ACCENT_VARIABLE = '--ai-accent';
/** The keyboard focus ring's colour with a site's `accent`: the accent, and in the dark scheme a lighter shade of it. */
export const ACCENT_RING_VARIABLE = '--ai-accent-ring';

/** The most starter questions, and the longest one. */
export const MAX_STARTERS = 4;
export const MAX_STARTER_LENGTH = 80;
/** The longest hint a site may give a visitor refused by a limit (`limit_message`). */
export const MAX_LIMIT_MESSAGE_LENGTH = 200;
/** The longest host-page title the frame passes on (`page_context`), as the server caps it too. */
export const MAX_PAGE_TITLE_LENGTH = 200;
/** The most earlier exchanges that may go with the latest message. */
export const MAX_HISTORY = 10;

/**
 * The page's part of the configuration. Never the `instructions`: they stay on the server. The accent is not here
 * either: it reaches the page as CSS, so that the first paint has it.
 */
export interface PageSettings {
  /** The card's title; unset, the language's own ("AI Assistant" in English, the spec's). */
  title?: string;
  /** Markdown shown as the first bot message of every conversation; never sent to the model. */
  welcome?: string;
  /** Questions offered as buttons until the visitor's first message. */
  starters: string[];
  /** How many earlier exchanges go with the latest message (proxy mode only); 0 is the spec's latest message alone. */
  history: number;
  /**
   * The site's own words for a visitor refused by the rate limit or the daily allowance, instead of the language's;
   * the page adds when to try again.
   */
  limitMessage?: string;
  /** `tab`: the conversation and the panel's state are kept in the tab's session storage; unset, nothing is kept. */
  persist?: 'tab';
  /** The embed's frame asks its host page for its path and title, which go with each message (proxy mode only). */
  pageContext?: true;
  /** Where a visitor goes after a Not helpful, or under a reply the site's pages did not cover: `https:` or `mailto:`. */
  contact?: string;
  /**
   * The site has a `handoff:` block: the card offers "Contact a person" (a form sent to the server, then by email or
   * webhook to the site's people); `replyWithin` is said in the confirmation ("within one working day").
   */
  handoff?: { replyWithin?: string };
}

/** The settings of a page with no configuration: exactly the spec. */
export const DEFAULT_PAGE_SETTINGS: PageSettings = { starters: [], history: 0 };
