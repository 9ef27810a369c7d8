// Bidirectional embedding, override and isolate controls (LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI). In a reply
// they reorder what a reader sees (`\u202Eelpmaxe.knab` reads "bank.example") and can run on past the reply's own
// text. The card isolates each message's direction itself (`dir="auto"`); a reply's own controls are not rendered.
// Kept apart from the renderer: a reply shown as plain text, before the renderer has loaded, drops them too.
/** The bidirectional controls as a character class's contents, for a pattern of one's own. */
export const BIDI_CONTROL_CHARACTERS = '\\u202A-\\u202E\\u2066-\\u2069';
const BIDI_CONTROLS = new RegExp(`[${BIDI_CONTROL_CHARACTERS}]`, 'g');

/** `text` without bidirectional embedding, override and isolate controls. */
export const withoutBidiControls = (text: string) => text.replace(BIDI_CONTROLS, '');
