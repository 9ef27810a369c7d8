// A question in each of the product's twelve languages finds the page in that language that answers it, among the
// same page in the eleven others: each language's words are cut, stop-worded and stemmed by its own rules, Japanese
// and Chinese (written without spaces) by Intl.Segmenter.
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../../locales/languages.ts';
import { retrieve } from './retrieve.ts';
import { buildIndex } from './search-index.ts';
import { page, site } from './test-pages.ts';

/** Per language: the returns page's title and text, and a visitor's question that the page answers. */
const RETURNS: Record<string, { title: string; text: string; question: string }> = {
  ar: {
    title: 'الإرجاع والاستبدال',
    text: 'نقبل الإرجاع خلال ثلاثين يوما من التسليم.',
    question: 'كم من الوقت لدي من أجل الإرجاع؟',
  },
  de: {
    title: 'Rückgabe und Umtausch',
    text: 'Wir nehmen Rückgaben innerhalb von dreißig Tagen nach der Lieferung an.',
    question: 'Wie lange habe ich Zeit für eine Rückgabe?',
  },
  en: {
    title: 'Returns and exchanges',
    text: 'We accept returns within thirty days of delivery.',
    question: 'How long do I have to return an item?',
  },
  es: {
    title: 'Devoluciones y cambios',
    text: 'Aceptamos devoluciones durante treinta días después de la entrega.',
    question: '¿Cuánto tiempo tengo para una devolución?',
  },
  fr: {
    title: 'Retours et échanges',
    text: 'Nous acceptons les retours dans les trente jours suivant la livraison.',
    question: 'Combien de temps ai-je pour un retour ?',
  },
  he: {
    title: 'החזרות והחלפות',
    text: 'אנו מקבלים החזרות תוך שלושים יום מהמשלוח.',
    question: 'תוך כמה זמן אפשר לבצע החזרות?',
  },
  it: {
    title: 'Resi e cambi',
    text: 'Accettiamo i resi entro trenta giorni dalla consegna.',
    question: 'Entro quanto tempo posso fare un reso?',
  },
  ja: {
    title: '返品と交換について',
    text: '商品到着後三十日以内であれば返品を受け付けます。',
    question: '返品はいつまでできますか？',
  },
  nl: {
    title: 'Retourneren en ruilen',
    text: 'Wij accepteren retouren binnen dertig dagen na levering.',
    question: 'Hoe lang heb ik voor een retour?',
  },
  pl: {
    title: 'Zwroty i wymiany',
    text: 'Przyjmujemy zwroty do trzydziestu dni od dostawy.',
    question: 'Ile mam czasu na zwroty?',
  },
  pt: {
    title: 'Devoluções e trocas',
    text: 'Aceitamos devoluções até trinta dias após a entrega.',
    question: 'Quanto tempo tenho para uma devolução?',
  },
  zh: { title: '退货和换货', text: '我们在收货后三十天内接受退货。', question: '退货期限是多久？' },
};

describe('a question in each of the twelve languages', async () => {
  const primary = (language: string) => language.split('-')[0];
  const index = await buildIndex(
    LANGUAGES.map((language) => {
      const { title, text } = RETURNS[primary(language)];
      return page(`/${primary(language)}/returns`, title, language, [['', text]]);
    }),
  );

  it.each(LANGUAGES.map((language) => [language]))('finds the returns page in %s', (language) => {
    const found = retrieve(index, { latest: RETURNS[primary(language)].question, language });
    expect(found.map(({ passage }) => passage.url.slice(site.length))).toEqual([`/${primary(language)}/returns`]);
  });
});
