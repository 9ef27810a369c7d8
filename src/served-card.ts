/** The card served in the page, as the visitor left it before the app replaced it. */
export interface ServedCard {
  /** Its message box, with whatever the visitor typed. */
  box: HTMLInputElement;
  /** Whether the visitor sent from it (Enter, Send), which no script handled then. */
  sendAsked(): boolean;
}

/**
 * Set on the root by public/served-card.js when the visitor sends from the served card before the app is in. That
 * script notes a send from the moment the card is in the page (build/prerender-card.ts), before the app's bundle has
 * arrived, let alone run: a file of its own, loaded `async`, runs as soon as it is fetched, whatever the bundle weighs.
 * The note goes on the root element, which React renders into but never compares with what it renders. Its comment
 * is one line: the file is served as it is, and counts in the start-up budget (build/size-budget.ts).
 */
export const SEND_ASKED_ATTRIBUTE = 'data-send-asked';

/**
 * Starts watching the card served in `root` (build/prerender-card.ts) for a send, from the moment this runs until the
 * app replaces it, with what public/served-card.js noted before; `undefined` when `root` holds no served card.
 */
export function watchServedCard(root: HTMLElement): ServedCard | undefined {
  const box = root.querySelector('input');
  const form = root.querySelector('form');
  if (!box || !form) return undefined;
  // The same note as public/served-card.js's, from now on: that script may not have arrived yet.
  form.addEventListener('submit', () => root.setAttribute(SEND_ASKED_ATTRIBUTE, ''));
  return { box, sendAsked: () => root.hasAttribute(SEND_ASKED_ATTRIBUTE) };
}
