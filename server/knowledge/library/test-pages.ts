// The pages the retrieval tests search: a small shop in English, with a page in Japanese and one in German.
import type { Page } from '../sources/page.ts';

export const site = 'https://shop.example.com';
export const page = (path: string, title: string, language: string, sections: [string, string][]): Page => ({
  url: `${site}${path}`,
  title,
  language,
  sections: sections.map(([heading, text]) => ({ headings: [title, heading], text })),
});

export const PAGES: Page[] = [
  page('/returns', 'Returns policy', 'en', [
    ['Time limit', 'You can return any item within thirty days of delivery for a full refund.'],
    ['Refunds', 'Refunds reach your card within five working days after the parcel arrives at our warehouse.'],
  ]),
  page('/shipping', 'Shipping', 'en', [
    ['Costs', 'Standard shipping within the country costs four euros; orders above fifty euros ship free.'],
    ['Abroad', 'We ship to most countries of the European Union within a week.'],
  ]),
  page('/hours', 'Opening hours', 'en', [
    ['Shop', 'The shop in the old town opens Monday to Saturday from nine to six; it is closed on Sundays.'],
  ]),
  page('/spades', 'Spades', 'en', [
    ['Blades', 'Our spades have blades forged from one piece of steel.'],
    ['Handles', 'Ash handles are oiled and replaceable.'],
  ]),
  page('/ja/returns', '返品について', 'ja', [
    ['期限', '商品はお届けから三十日以内であれば返品できます。返金は五営業日以内に行います。'],
  ]),
  page('/de/versand', 'Versand', 'de', [
    ['Lieferung', 'Lieferungen innerhalb Deutschlands dauern zwei bis drei Werktage.'],
  ]),
];
