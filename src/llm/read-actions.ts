import type { ActionConfirmation, ActionNote, ReplyActions } from '../../contract/actions';

// What the page's own server says of a reply's actions (its `chat.completion.actions` event, or a whole reply's
// `actions`), read as data: only well-formed notes and a well-formed confirmation are kept, and all of it is plain
// text that the card shows as written.

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isPlain = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);

function isNote(value: unknown): value is ActionNote {
  if (!isRecord(value)) return false;
  const { action, text, inputs, failed } = value;
  return (
    typeof action === 'string' &&
    typeof text === 'string' &&
    isRecord(inputs) &&
    Object.values(inputs).every(isPlain) &&
    (failed === undefined || failed === true)
  );
}

function isConfirmation(value: unknown): value is ActionConfirmation {
  if (!isRecord(value)) return false;
  const { action, text, token, conversation, expires } = value;
  return (
    typeof action === 'string' &&
    typeof text === 'string' &&
    typeof token === 'string' &&
    typeof conversation === 'string' &&
    typeof expires === 'number'
  );
}

/** The notes and the confirmation in `value`, or `undefined` when it holds neither. */
export function readActions(value: unknown): ReplyActions | undefined {
  if (!isRecord(value)) return undefined;
  const notes = Array.isArray(value.notes) ? value.notes.filter(isNote) : [];
  const confirmation = isConfirmation(value.confirmation) ? value.confirmation : undefined;
  if (notes.length === 0 && !confirmation) return undefined;
  return {
    notes: notes.map(({ action, text, inputs, failed }) => ({ action, text, inputs, ...(failed ? { failed } : {}) })),
    ...(confirmation ? { confirmation: pick(confirmation) } : {}),
  };
}

function pick({ action, text, token, conversation, expires }: ActionConfirmation): ActionConfirmation {
  return { action, text, token, conversation, expires };
}
