// The actions room's one entry (issue 49): the owner's API calls the model may ask for, as tools, called and signed,
// with the visitor's identity from the host page and a signed confirmation before a write.

export { type DailyCall, takeDailyCall } from './action-limits.ts';
export {
  type Action,
  type ActionInput,
  type ActionInputs,
  type InputValue,
  MAX_INPUT_LENGTH,
  placeholdersOf,
} from './action-types.ts';
export {
  ACTION_TIMEOUT_MS,
  type CallFailure,
  type CallOptions,
  type CallResult,
  callAction,
  signatureOf,
} from './call-action.ts';
export {
  type ActionEvent,
  type ActionOffer,
  type Asker,
  type ChatActionsDeps,
  noteOf,
  offerActions,
  type ToolOutcome,
} from './chat-actions.ts';
export {
  type CheckedConfirmation,
  type Confirmations,
  type ConfirmCount,
  type ConfirmDeps,
  confirmations,
  type Performed,
} from './confirm-action.ts';
export {
  CONFIRM_TOKEN_LIFETIME_MS,
  type ConfirmClaims,
  type ConfirmRefusal,
  type ConfirmTokens,
  confirmTokens,
} from './confirm-token.ts';
export { type ServerActions, type ServerActionsSettings, serverActions } from './server-actions.ts';
export { checkArguments, toolDefinition } from './tool-schema.ts';
export {
  type CheckIdentity,
  type IdentityKeys,
  type VisitorIdentity,
  visitorIdentity,
} from './visitor-identity.ts';
