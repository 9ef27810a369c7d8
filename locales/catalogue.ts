import type { en } from './en.ts';

/** The key of a text the visitor sees or hears. */
export type MessageKey = keyof typeof en;

/** Every text of the card in one language, by key. */
export type Catalogue = Record<MessageKey, string>;
