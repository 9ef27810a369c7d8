import { describe, expect, it } from 'vitest';
import { CATALOGUES } from './catalogues.ts';
import { en } from './en.ts';
import { acceptedLanguages, LANGUAGES, matchLanguage, pickLanguage, textDirection } from './languages.ts';

describe('the catalogues', () => {
  it.each(LANGUAGES)('%s has exactly the keys English has, each with a text', (language) => {
    const catalogue = CATALOGUES[language];
    expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
    for (const text of Object.values(catalogue)) expect(text.trim()).not.toBe('');
  });

  it.each(LANGUAGES)("%s names the launcher after the site's title, once", (language) => {
    expect(CATALOGUES[language].launcher.split('{title}')).toHaveLength(2);
  });

  it.each(LANGUAGES)('%s names the host every source shares, once', (language) => {
    expect(CATALOGUES[language].sourcesFrom.split('{host}')).toHaveLength(2);
  });

  it('holds one catalogue per language', () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual([...LANGUAGES].sort());
  });

  it('keeps English the specification’s texts', () => {
    expect(en).toMatchObject({
      title: 'AI Assistant',
      placeholder: 'Your message here',
      sending: 'Sending...',
      send: 'Send',
      error: 'Error: Unable to get response',
      noContent: 'No response received',
    });
  });

  it.each(LANGUAGES.filter((language) => language !== 'en'))('%s is translated, not English', (language) => {
    const catalogue = CATALOGUES[language];
    expect(catalogue.placeholder).not.toBe(en.placeholder);
    expect(catalogue.error).not.toBe(en.error);
  });
});

describe('choosing a language', () => {
  it('matches a regional variant to its base language', () => {
    expect(matchLanguage('de-AT')).toBe('de');
    expect(matchLanguage('pt-PT')).toBe('pt-BR');
    expect(matchLanguage('PT-br')).toBe('pt-BR');
    expect(matchLanguage('zh')).toBe('zh-CN');
    expect(matchLanguage('zh-Hans-SG')).toBe('zh-CN');
    expect(matchLanguage('en-GB')).toBe('en');
  });

  it('has no catalogue for Traditional Chinese, an unknown language or a malformed tag', () => {
    expect(matchLanguage('zh-TW')).toBeUndefined();
    expect(matchLanguage('zh-Hant')).toBeUndefined();
    expect(matchLanguage('xx')).toBeUndefined();
    expect(matchLanguage('not a tag!')).toBeUndefined();
  });

  it('takes the first tag with a catalogue, else English', () => {
    expect(pickLanguage(['xx', undefined, 'fr-CA', 'de'])).toBe('fr');
    expect(pickLanguage([null, '', 'xx'])).toBe('en');
    expect(pickLanguage([])).toBe('en');
  });

  it('reads Accept-Language by weight, then by order, without refused or wildcard tags', () => {
    expect(acceptedLanguages('fr;q=0.5, de-AT, xx;q=0.9, *;q=0.1, ja;q=0')).toEqual(['de-AT', 'xx', 'fr']);
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(pickLanguage(acceptedLanguages('xx, nl;q=0.8, de;q=0.9'))).toBe('de');
  });
});

describe('direction', () => {
  it.each(LANGUAGES)('%s', (language) => {
    expect(textDirection(language)).toBe(language === 'ar' || language === 'he' ? 'rtl' : 'ltr');
  });

  it('falls back to its list where the engine gives no text info', () => {
    const proto = Intl.Locale.prototype as unknown as Record<string, unknown>;
    const own = ['getTextInfo', 'textInfo'].map(
      (name) => [name, Object.getOwnPropertyDescriptor(proto, name)] as const,
    );
    try {
      for (const [name] of own) Object.defineProperty(proto, name, { value: undefined, configurable: true });
      expect(textDirection('fa')).toBe('rtl');
      expect(textDirection('he-IL')).toBe('rtl');
      expect(textDirection('de')).toBe('ltr');
    } finally {
      for (const [name, descriptor] of own) {
        if (descriptor) Object.defineProperty(proto, name, descriptor);
        else delete proto[name];
      }
    }
  });
});
