// The actions' address and answers, shared by the server and the page that confirms (issue 49).

/** `POST` `{ token, conversation, identity? }`: the visitor confirms a write the server proposed. */
export const ACTIONS_CONFIRM_PATH = '/api/actions/confirm';
/** The largest confirmation body taken: the token (inputs included) and the visitor token. */
export const MAX_CONFIRM_BODY_BYTES = 32 * 1024;

/** Why a confirmation is refused: the `code` of the error's body. */
export type ConfirmRefusalCode =
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'invalid_body'
  | 'invalid_token'
  | 'expired_token'
  | 'other_conversation'
  | 'replayed_token'
  | 'identity_required'
  | 'rate_limited'
  | 'action_failed';

/**
 * The `object` of the proxy's own event of a streamed reply that used actions, `{ object, notes, confirmation }`, sent
 * before the reply's first piece (after the sources' event); a whole reply carries `actions: { notes, confirmation }`
 * next to its choices instead.
 */
export const ACTIONS_OBJECT = 'chat.completion.actions';

/** One action the server called for the reply: a one-line note (the action's `show`, or its name) and what it sent. */
export interface ActionNote {
  action: string;
  /** Plain text, never Markdown: the card shows it as written. */
  text: string;
  inputs: Record<string, string | number | boolean>;
  /** The owner's API did not answer with JSON: the reply goes on without its result. */
  failed?: true;
}

/**
 * A write the model proposed, for the visitor to confirm: the owner's `confirm` text filled with the checked inputs
 * (never the model's words), and the token `POST` {@link ACTIONS_CONFIRM_PATH} takes with `conversation`.
 */
export interface ActionConfirmation {
  action: string;
  text: string;
  token: string;
  conversation: string;
  /** When the token stops being taken (ms since the epoch). */
  expires: number;
}

/** What the proxy says of a reply's actions. */
export interface ReplyActions {
  notes: ActionNote[];
  confirmation?: ActionConfirmation;
}
