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
