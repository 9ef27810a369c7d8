// The chat room's one entry: the route, its options, and the search-word request the knowledge bench measures.
export type { ChatOptions } from './chat-options.ts';
export { chatRoute } from './chat-route.ts';
export { askSearchWords, searchWordsRequest } from './search-words.ts';
