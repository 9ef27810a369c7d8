// The chat room's one entry: the routes (the chat, and the Confirm of an action answered as a chat reply), its options, and the search-word request the knowledge bench measures.
export type { ChatOptions } from './chat-options.ts';
export { chatRoute } from './chat-route.ts';
export { confirmRoute } from './confirm-route.ts';
export { askSearchWords, searchWordsRequest } from './search-words.ts';
