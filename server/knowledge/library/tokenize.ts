import { stemmer as arabic } from '@orama/stemmers/arabic';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { ara, deu, eng, fra, heb, ita, jpn, nld, pol, por, spa, zho } from 'stopword';

/** How one language's text becomes index terms. */
interface LanguageRule {
  stopWords: ReadonlySet<string>;
  /** Absent where no stemmer exists (Hebrew, Polish) or where words are not inflected that way (Chinese, Japanese). */
  stem?: (word: string) => string;
  /** Chinese and Japanese do not separate words with spaces: `Intl.Segmenter` finds them. */
  segmenter?: Intl.Segmenter;
}

/**
 * The words a visitor's question brings that a page rarely holds: `stopword`'s lists are made for documents and keep
 * "when", "does" or いつ, and a word that no page holds weighs the most in the relevance rule, so "When does the shop
 * open?" would fail for want of "when".
 */
const QUESTION_WORDS: Record<string, string> = {
  ar: 'متى كيف أين لماذا ما ماذا من هل يمكن',
  de: 'wann wie was wo woher wohin warum weshalb wieso welche welcher welches wer wen wem kann können könnte muss ich mir mein meine bitte gibt',
  en: 'when where why which who whom whose what how does did do can could will would shall should may might must is are was were be am i me my mine we us our ours you your yours it its there please tell anyone anything',
  es: 'cuándo cuando cómo como dónde donde qué que quién cuál cuáles puedo puede pueden mi mis yo usted',
  fr: 'quand comment pourquoi où quel quelle quels quelles qui que quoi est puis peux peut pouvez je mon ma mes vous',
  he: 'מתי איך איפה למה מה מי האם אפשר',
  it: 'quando come dove perché cosa che quale quali chi posso può mio mia io',
  ja: 'いつ どこ 何 何時 何日 何曜日 なに なん どう どの どれ 誰 だれ どんな なぜ どうして いくら 教え ください です でしょ',
  nl: 'wanneer hoe waar waarom wat welke wie kan kunnen mijn ik u',
  pl: 'kiedy jak gdzie dlaczego co który która które kto czy mogę można mój moja',
  pt: 'quando como onde porque porquê que qual quais quem posso pode meu minha eu você',
  zh: '什么 什 么 怎么 怎 怎样 哪里 哪儿 哪 谁 为什么 多少 吗 呢 请问 请 如何 几 几点 可以 我',
};

/** Words whose stems are remembered, per language: past this, the memory starts again (a page of unique words). */
const STEMS_KEPT = 50_000;

/**
 * `stem`, remembering its answers: a site repeats its words, and the stemmers' regular expressions were the most of
 * the server thread's time while a site was indexed (`npm run bench:knowledge`, hostile rows).
 */
function remembered(stem: (word: string) => string): (word: string) => string {
  let stems = new Map<string, string>();
  return (word) => {
    let found = stems.get(word);
    if (found === undefined) {
      if (stems.size >= STEMS_KEPT) stems = new Map();
      found = stem(word);
      stems.set(word, found);
    }
    return found;
  };
}

const rule = (
  language: string,
  stopWords: string[],
  stem?: (word: string) => string,
  segmenter?: Intl.Segmenter,
): LanguageRule => ({
  stopWords: new Set([...stopWords, ...QUESTION_WORDS[language].split(' ')]),
  stem: stem && remembered(stem),
  segmenter,
});

/** The product's twelve languages, by their primary subtag. */
const RULES: Record<string, LanguageRule> = {
  ar: rule('ar', ara, arabic),
  de: rule('de', deu, german),
  en: rule('en', eng, english),
  es: rule('es', spa, spanish),
  fr: rule('fr', fra, french),
  he: rule('he', heb),
  it: rule('it', ita, italian),
  ja: rule('ja', jpn, undefined, new Intl.Segmenter('ja', { granularity: 'word' })),
  nl: rule('nl', nld, dutch),
  pl: rule('pl', pol),
  pt: rule('pt', por, portuguese),
  zh: rule('zh', zho, undefined, new Intl.Segmenter('zh', { granularity: 'word' })),
};

export const DEFAULT_LANGUAGE = 'en';

/** The language whose rule applies to a BCP 47 tag (`pt-BR` → `pt`); a language without one is read as English. */
export function ruleLanguage(tag: string | undefined): string {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return primary in RULES ? primary : DEFAULT_LANGUAGE;
}

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN = /\p{Script=Han}/u;

/**
 * The language a text is written in when its script says so (kana: Japanese; Han without kana: Chinese), otherwise
 * `fallback`. Only these two are told apart by script: the others need the page's or the visitor's language.
 */
export function scriptLanguage(text: string, fallback: string): string {
  if (KANA.test(text)) return 'ja';
  if (HAN.test(text)) return 'zh';
  return fallback;
}

/** Letters, marks and digits: a regular expression splits spaced scripts about 20× faster than a segmenter. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** Words joined by underscores, as configuration settings, functions and columns are named. */
const IDENTIFIER = /[\p{L}\p{M}\p{N}]+(?:_[\p{L}\p{M}\p{N}]+)+/gu;

/** A text's index terms for its language: lower case, stop words out, stemmed where the language has a stemmer. */
export function tokenize(text: string, language: string): string[] {
  const { stopWords, stem, segmenter } = RULES[ruleLanguage(language)];
  const lower = text.toLowerCase();
  const words = segmenter
    ? Array.from(segmenter.segment(lower), (part) => (part.isWordLike ? part.segment : '')).filter(Boolean)
    : (lower.match(WORD) ?? []);
  const terms: string[] = [];
  for (const word of words) {
    if (stopWords.has(word)) continue;
    terms.push(stem ? stem(word) : word);
  }
  // A name joined by underscores (`shared_buffers`) is one term too: its parts alone are common words of the site.
  if (!segmenter) for (const name of lower.match(IDENTIFIER) ?? []) terms.push(name);
  return terms;
}
