// The lazy chunk of `reply-status.ts`: what the conversation shows while a reply is pending, after one that failed, and
// once there is a conversation (New conversation, Download conversation).
export { NewConversation } from './new-conversation';
export { RetryRow, StopButton } from './reply-controls';
export { TypingIndicator } from './typing-indicator';
