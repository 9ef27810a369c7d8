// The lazy chunk of `reply-status.ts`: what the conversation shows while a reply is pending, and after one that failed.
export { RetryRow, StopButton } from './reply-controls';
export { TypingIndicator } from './typing-indicator';
