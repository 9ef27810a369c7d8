// The configuration file's schema: the one place its keys, types and limits are written (docs/configuration.md
// describes each). assistant-config.ts reads a file with it; config-file.ts words its problems.
import * as v from 'valibot';
import {
  MAX_HISTORY,
  MAX_LIMIT_MESSAGE_LENGTH,
  MAX_STARTER_LENGTH,
  MAX_STARTERS,
} from '../../contract/page-settings.ts';
import { LANGUAGES, matchLanguage } from '../../locales/languages.ts';
import { ACCENT_FORMS } from '../pages/pages.ts';
import { actionsSchema } from './config-actions.ts';

const MAX_TITLE_LENGTH = 60;
const MAX_WELCOME_LENGTH = 2000;
const MAX_INSTRUCTIONS_LENGTH = 8000;

const MAX_KNOWLEDGE_SOURCES = 20;
/** A sitemap source's page cap: 1,000 unless its `max_pages` says otherwise, up to 50,000. */
export const MAX_SITEMAP_PAGES = 50_000;

/** A whole number from `min` to `max`, every message saying so. */
const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
};

/** A source's address: the library links only to web pages, so anything but `http:` and `https:` is refused here. */
const webAddress = v.pipe(
  v.string('must be an http: or https: address'),
  v.check((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an http: or https: address'),
);

/** One `knowledge:` entry: a folder published at `url`, or a sitemap (server/knowledge/knowledge.ts reads both). */
export const knowledgeSource = v.union(
  [
    v.strictObject({ path: v.pipe(v.string('must be a folder'), v.nonEmpty('must be a folder')), url: webAddress }),
    v.strictObject({
      sitemap: webAddress,
      max_pages: v.optional(wholeNumber(1, MAX_SITEMAP_PAGES)),
    }),
  ],
  'must be a folder and its address ({ path, url }) or a sitemap ({ sitemap, max_pages })',
);

/** `description:`: a sentence or two about the site, told to the model that gives search words. */
export const MAX_DESCRIPTION_LENGTH = 300;

const text = (max: number) =>
  v.pipe(
    v.string(`must be text of 1 to ${max} characters`),
    v.check((value) => value.trim() !== '', `must be text of 1 to ${max} characters, not blank`),
    v.maxLength(max, `must be text of 1 to ${max} characters`),
  );

/** Every message says what is allowed. */
/** What `contact:` may be. */
const CONTACT_FORMS = 'must be an https: address or a mailto: address, such as https://www.example.com/contact';

/** What `handoff.email` may be: one address. */
const HANDOFF_EMAIL = 'must be one email address, such as help@shop.example';
/** What `handoff.reply_within` may be: a few words the visitor reads after "We will reply … by email". */
const MAX_REPLY_WITHIN_LENGTH = 60;

/** `handoff:`: where a visitor's message to a person goes (server/handoff/), by SMTP, by webhook, or both. */
export const handoffSchema = v.pipe(
  v.strictObject(
    {
      email: v.optional(
        v.pipe(
          v.string(HANDOFF_EMAIL),
          v.maxLength(254, HANDOFF_EMAIL),
          v.check((value) => /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(value.trim()), HANDOFF_EMAIL),
        ),
      ),
      webhook: v.optional(webAddress),
      reply_within: v.optional(text(MAX_REPLY_WITHIN_LENGTH)),
    },
    'is not a key of handoff',
  ),
  v.check((value) => Boolean(value.email || value.webhook), 'needs an email, a webhook, or both'),
);
/** The keys of the `handoff:` block. */
export const HANDOFF_KEYS = ['email', 'webhook', 'reply_within'];

export const configSchema = v.strictObject(
  {
    title: v.optional(text(MAX_TITLE_LENGTH)),
    welcome: v.optional(text(MAX_WELCOME_LENGTH)),
    starters: v.optional(
      v.pipe(
        v.array(text(MAX_STARTER_LENGTH), `must be a list of up to ${MAX_STARTERS} questions`),
        v.maxLength(MAX_STARTERS, `must be a list of up to ${MAX_STARTERS} questions`),
      ),
    ),
    instructions: v.optional(text(MAX_INSTRUCTIONS_LENGTH)),
    limit_message: v.optional(text(MAX_LIMIT_MESSAGE_LENGTH)),
    accent: v.optional(v.string(`must be ${ACCENT_FORMS}`)),
    language: v.optional(
      v.pipe(
        v.string(`must be one of ${LANGUAGES.join(', ')} (or a regional variant of one)`),
        v.check(
          (tag) => matchLanguage(tag) !== undefined,
          `must be one of ${LANGUAGES.join(', ')} (or a regional variant of one)`,
        ),
      ),
    ),
    knowledge: v.optional(
      v.pipe(
        v.array(knowledgeSource, `must be a list of up to ${MAX_KNOWLEDGE_SOURCES} sources`),
        v.minLength(1, `must be a list of up to ${MAX_KNOWLEDGE_SOURCES} sources`),
        v.maxLength(MAX_KNOWLEDGE_SOURCES, `must be a list of up to ${MAX_KNOWLEDGE_SOURCES} sources`),
      ),
    ),
    history: v.optional(wholeNumber(0, MAX_HISTORY)),
    persist: v.optional(v.picklist(['off', 'tab'], 'must be off or tab')),
    page_context: v.optional(v.boolean('must be true or false')),
    // The hand-off after a Not helpful: a page of the site's own (https:) or an address to write to (mailto:).
    contact: v.optional(
      v.pipe(
        v.string(CONTACT_FORMS),
        v.maxLength(500, CONTACT_FORMS),
        v.check((value) => /^(https:\/\/[^\s/]+[^\s]*|mailto:[^\s@]+@[^\s@]+)$/i.test(value.trim()), CONTACT_FORMS),
      ),
    ),
    rewrite_questions: v.optional(v.boolean('must be true or false')),
    // What the site is about, for the search-word call (it tells the model which questions the site cannot cover).
    description: v.optional(text(MAX_DESCRIPTION_LENGTH)),
    handoff: v.optional(handoffSchema),
    actions: v.optional(actionsSchema),
  },
  'is not a known key',
);

export type ConfigFile = v.InferOutput<typeof configSchema>;
/** The known keys, as a problem lists them. */
export const KEY_NAMES = Object.keys(configSchema.entries);
export const KEYS = KEY_NAMES.join(', ');
/** The keys of a `knowledge:` entry. */
export const SOURCE_KEYS = ['path', 'url', 'sitemap', 'max_pages'];
