/** The card served in the page, as the visitor left it before the app replaced it. */
export interface ServedCard {
  /** Its message box, with whatever the visitor typed. */
  box: HTMLInputElement;
  /** Whether the visitor sent from it (Enter, Send), which no script handled then. */
  sendAsked(): boolean;
}

/** Set on the root by public/served-card.js when the visitor sends from the served card before the app is in. */
export const SEND_ASKED_ATTRIBUTE = 'data-send-asked';

/**
 * Starts watching the card served in `root` (build/prerender-card.ts) for a send, from the moment this runs until the
 * app replaces it, with what public/served-card.js noted before; `undefined` when `root` holds no served card.
 */
export function watchServedCard(root: HTMLElement): ServedCard | undefined {
  const box = root.querySelector('input');
  const form = root.querySelector('form');
  if (!box || !form) return undefined;
  let asked = false;
  form.addEventListener('submit', () => {
    asked = true;
  });
  return { box, sendAsked: () => asked || root.hasAttribute(SEND_ASKED_ATTRIBUTE) };
}
