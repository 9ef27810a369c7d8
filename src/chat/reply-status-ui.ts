// The lazy chunk of `reply-status.ts`: what the conversation shows while a reply is pending, after one that failed, and
// once there is a conversation (New conversation, Download conversation, Contact a person and its form's place), and
// what a reply shows of the site's actions.
export { ActionParts } from './action-parts';
export { ConversationEnd } from './conversation-end';
export { HandoffPanel } from './handoff-panel';
export { NewConversation } from './new-conversation';
export { StopButton } from './reply-controls';
