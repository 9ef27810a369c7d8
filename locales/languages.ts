// Which language a page is served in, and its direction. Shared by the server (which picks the language per request)
// and the build (which renders the card once per language); the page itself receives only its own catalogue.

/** The languages with a catalogue, as BCP 47 tags. */
export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt-BR', 'nl', 'pl', 'ja', 'zh-CN', 'ar', 'he'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The specification's language, and the last resort. */
export const DEFAULT_LANGUAGE: Language = 'en';

/** Catalogues by base language: a regional variant (`de-AT`, `pt-PT`) reads its base language's. */
const BY_BASE = new Map<string, Language>(LANGUAGES.map((language) => [language.split('-')[0], language]));

/**
 * The catalogue for a BCP 47 tag, or `undefined` when there is none (or the tag is not one). Chinese in the
 * Traditional script (`zh-TW`, `zh-Hant`) has no catalogue: Simplified would be the wrong script for its readers.
 */
export function matchLanguage(tag: string): Language | undefined {
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(tag.trim()).maximize();
  } catch {
    return undefined;
  }
  if (locale.language === 'zh' && locale.script !== 'Hans') return undefined;
  return BY_BASE.get(locale.language);
}

/** The first of `tags`, in order, that has a catalogue; English when none has. */
export function pickLanguage(tags: Iterable<string | null | undefined>): Language {
  for (const tag of tags) {
    const language = tag ? matchLanguage(tag) : undefined;
    if (language) return language;
  }
  return DEFAULT_LANGUAGE;
}

/** How much of an `Accept-Language` header is read: a header's cost must not be the client's choice. */
export const MAX_ACCEPTED_TAGS = 10;
/** The longest language tag read (BCP 47's own advice for what to support). */
export const MAX_TAG_LENGTH = 35;

/**
 * The tags of an `Accept-Language` header, most wanted first (`*` and refused `q=0` ones left out): only its first
 * `MAX_ACCEPTED_TAGS`, each of up to `MAX_TAG_LENGTH` characters (a longer one is passed over, not cut).
 */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(',', MAX_ACCEPTED_TAGS)
    .map((part, index) => {
      // A tag with its `;q=` fits well within this; what is cut off is no tag.
      const [tag, ...params] = part
        .slice(0, 2 * MAX_TAG_LENGTH)
        .trim()
        .split(';');
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter(({ tag, q }) => tag !== '' && tag !== '*' && tag.length <= MAX_TAG_LENGTH && q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(({ tag }) => tag);
}

/** Scripts written right to left, for engines without `Intl.Locale`'s text info. */
const RTL_LANGUAGES = ['ar', 'he', 'fa', 'ur'];

type TextInfo = { direction?: 'ltr' | 'rtl' };

/** The direction a language is written in, from `Intl` where the engine says, else from a short list. */
export function textDirection(language: string): 'ltr' | 'rtl' {
  const locale = new Intl.Locale(language) as Intl.Locale & { getTextInfo?: () => TextInfo; textInfo?: TextInfo };
  const info = locale.getTextInfo?.() ?? locale.textInfo;
  return info?.direction ?? (RTL_LANGUAGES.includes(locale.language) ? 'rtl' : 'ltr');
}

/** The built page in `language`: the card rendered in it (build/prerender-card.ts), served by the server for it. */
export function pageFileName(language: Language): string {
  return language === DEFAULT_LANGUAGE ? 'index.html' : `index.${language}.html`;
}
