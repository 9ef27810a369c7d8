import { acceptedLanguages, type Language, MAX_TAG_LENGTH, pickLanguage } from '../../locales/languages.ts';

/** What a request for the app's page says about its language. */
export interface PageLanguageRequest {
  /** The page's `?lang=`: the embed loader passes its tag's `data-lang` so (contract/embed.ts). */
  asked?: string | null;
  /** The site's configured language, if it has one. */
  configured?: string;
  /** The browser's `Accept-Language` header. */
  acceptLanguage?: string | null;
}

/**
 * The language the page is served in: the one asked for, then the site's, then the browser's in order of preference,
 * then English. Each is matched to a catalogue by its base language (`de-AT` → `de`); one without a catalogue is
 * passed over for the next.
 */
export function pageLanguage({ asked, configured, acceptLanguage }: PageLanguageRequest): Language {
  // A longer `?lang=` is no language tag, and would cost its length to look at.
  const askedTag = asked && asked.length <= MAX_TAG_LENGTH ? asked : undefined;
  return pickLanguage([askedTag, configured, ...acceptedLanguages(acceptLanguage)]);
}
