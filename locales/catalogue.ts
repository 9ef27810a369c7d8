import type { en } from './en.ts';

/** The key of a text the visitor sees or hears. */
export type MessageKey = keyof typeof en;

/** Every text of the card in one language, by key. */
export type Catalogue = Record<MessageKey, string>;

/** The id of the served page's `<script type="application/json">` holding its one catalogue. */
export const CATALOGUE_ELEMENT_ID = 'catalogue';
