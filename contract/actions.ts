// The actions' address and answers, shared by the server and the page that confirms (issue 49).

/**
 * `POST`: the visitor's Confirm or Cancel of a write the server proposed ({@link ActionConfirmation}).
 *
 * Confirm: the page's ordinary chat request body, as it sends it to the chat completions path (`model`, `messages`:
 * the history and the visitor message that led to the proposal, `max_tokens`, `temperature`, `stream`, `language`,
 * `page_context`…), plus {@link ConfirmFields}. The page sends it with its openai client,
 * `client.chat.completions.create(body, { signal, path: <absolute URL of this path> })`, and the answer is what the
 * chat route answers: with `stream: true` an event stream of `chat.completion.chunk` events (the proxy's own events
 * first, among them `{ object: ACTIONS_OBJECT, notes: [the note of the action done] }`) ending in `[DONE]`; without,
 * a whole `chat.completion` with `actions: { notes }`. The words are the model's, told the action's result; when the
 * model fails (unreachable, an error status, no piece before the deadline) they are the action's `show` filled (or a
 * sentence with its name), still a 200 reply in the format asked for. The action is performed once, before the model
 * is asked; a reservation under the spend cap the server refuses (429 `daily_token_limit`) performs nothing.
 *
 * Cancel: {@link CancelBody}; the token is checked the same way and used up (a later Confirm of it is refused as
 * `replayed_token`), nothing is called, and the answer is 200 {@link CancelAnswer}.
 *
 * A refusal, of either, is a JSON error `{ error: { code, message } }` ({@link ConfirmRefusalCode}; 400, 403
 * `identity_required`, 415, 413, 429 `rate_limited` with `Retry-After`), and an action the owner's API failed is 502
 * `action_failed` (with `reason`): nothing is said in words then, the page says it.
 */
export const ACTIONS_CONFIRM_PATH = '/api/actions/confirm';
/** What the confirm path takes beyond the chat's own body limit: the token (inputs included) and the visitor token. */
/** The longest visitor token (`identity`) the page passes on and the server reads: a real one is a few hundred. */
export const MAX_IDENTITY_LENGTH = 4096;
/** The largest confirmation body taken: the token (inputs included) and the visitor token. */
export const MAX_CONFIRM_BODY_BYTES = 32 * 1024;

/** What a Confirm adds to the page's chat request body. */
export interface ConfirmFields {
  /** The {@link ActionConfirmation}'s `token`. */
  confirmation: string;
  /** The page's id of the conversation (the confirmation's `conversation`). */
  conversation: string;
  /** The host page's visitor token, when it gave one (needed for an action with `identity: required`). */
  identity?: string;
}

/** A Cancel's whole body. */
export interface CancelBody extends ConfirmFields {
  cancel: true;
}

/** A Cancel's answer. */
export interface CancelAnswer {
  cancelled: true;
}

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
