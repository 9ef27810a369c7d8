// What a site with `persist: tab` needs, as one lazy chunk: the page of a site without it never downloads it.
export { keepConversation, readKeptConversation } from './kept-conversation';
