import { describe, expect, it } from 'vitest';
import type { Page } from '../sources/page.ts';
import { INDEX_BUDGET } from '../workers/index-budget.ts';
import { keptInWorker } from '../workers/index-in-worker.ts';
import { chunkPage } from './chunk.ts';
import { retrieve } from './retrieve.ts';
import { indexFromKept, indexPassages, indexToKeep } from './search-index.ts';

const site = 'https://shop.example.com';
const page = (path: string, title: string, text: string): Page => ({
  url: `${site}${path}`,
  title,
  language: 'en',
  sections: [{ headings: [title], text }],
});

/** A page of `count` words that no other page holds (the red team's page that filled the heap). */
const uniqueWords = (path: string, count: number, from = 0) =>
  page(path, 'Words', Array.from({ length: count }, (_, n) => `w${(from + n).toString(36)}`).join(' '));

const PAGES = [
  page('/hours', 'Opening hours', 'The shop in the old town opens Monday to Saturday from nine to six.'),
  page('/returns', 'Returns policy', 'You can return any item within thirty days of delivery for a full refund.'),
  uniqueWords('/words', 3_000),
];
const passages = PAGES.flatMap(chunkPage);
const found = (index: Awaited<ReturnType<typeof indexPassages>>, question: string) =>
  retrieve(index, { latest: question }).map(({ passage }) => passage.url.slice(site.length));

describe('the kept index', () => {
  it('loads as the same index it was built as, the pages its budget left out included', async () => {
    const budget = { maxTextChars: 1_000_000, maxPassages: 1_000, maxTerms: 100, maxPageTerms: 1_000 };
    const log: string[] = [];
    const { index, kept } = await indexToKeep(passages, budget, (line) => log.push(line));
    expect(log).toEqual([`[knowledge] skipped ${site}/words: the index would hold more than 100 distinct terms`]);
    const loaded = await indexFromKept(kept, passages);
    expect(loaded.passages).toEqual(index.passages);
    expect(loaded.documentFrequency).toEqual(index.documentFrequency);
    expect(loaded.languages).toEqual(['en']);
    expect(found(loaded, 'When does the shop open?')).toEqual(['/hours']);
    expect(found(loaded, 'Can I return an item for a refund?')).toEqual(['/returns']);
  });

  it('scores every passage as the index it was built as, over passages of several languages', async () => {
    const pages = [
      ...PAGES.slice(0, 2),
      { ...page('/de/versand', 'Versand', 'Wir versenden jede Bestellung innerhalb von zwei Tagen.'), language: 'de' },
      page('/delivery', 'Delivery', 'We ship every order within two days; the shop opens at nine for pick-up.'),
      uniqueWords('/words', 300),
    ];
    const { index, kept } = await indexToKeep(pages.flatMap(chunkPage), INDEX_BUDGET, () => {});
    const loaded = await indexFromKept(kept, pages.flatMap(chunkPage));
    expect(loaded.languages).toEqual(['de', 'en']);
    for (const query of ['shop open nine', 'order day', 'versend bestellung', 'w1 w2 w3 refund']) {
      const results = (search: typeof index.search) => search.search(query).map(({ id, score }) => [id, score]);
      expect(results(loaded.search)).toEqual(results(index.search));
      expect(results(loaded.search).length).toBeGreaterThan(0);
    }
  });

  it('is refused when it does not match the passages it is loaded over', async () => {
    const { kept } = await indexToKeep(passages, { ...INDEX_BUDGET, maxPageTerms: 1e6 }, () => {});
    await expect(indexFromKept(kept, passages.slice(1))).rejects.toThrow(/does not match/);
  });

  it('names the first ten pages a budget leaves out, then counts the rest in one line', async () => {
    const pages = Array.from({ length: 15 }, (_, n) => page(`/p${n}`, `Guide ${n}`, `Guide number ${n}.`));
    const log: string[] = [];
    const index = await indexPassages(pages.flatMap(chunkPage), { ...INDEX_BUDGET, maxPassages: 3 }, (line) =>
      log.push(line),
    );
    expect(index.passages).toHaveLength(3);
    const over = 'the index would hold more than 3 passages';
    expect(log).toEqual([
      ...pages.slice(3, 13).map(({ url }) => `[knowledge] skipped ${url}: ${over}`),
      `[knowledge] skipped 2 more pages: ${over}`,
    ]);
  });

  it('refuses a page over the term budget and keeps indexing the pages after it', async () => {
    const index = await indexPassages(
      [...chunkPage(uniqueWords('/a', 50)), ...chunkPage(uniqueWords('/b', 5_000, 50)), ...chunkPage(PAGES[0])],
      { ...INDEX_BUDGET, maxTerms: 1_000 },
    );
    expect([...new Set(index.passages.map((passage) => passage.url.slice(site.length)))]).toEqual(['/a', '/hours']);
    expect(index.documentFrequency.size).toBeLessThanOrEqual(1_000);
  });

  it('refuses a page with more distinct terms than one page may bring, whatever room the index has', async () => {
    const log: string[] = [];
    const index = await indexPassages(
      [
        ...chunkPage(uniqueWords('/many', 3_000)),
        ...chunkPage(uniqueWords('/some', 500, 3_000)),
        ...chunkPage(PAGES[0]),
      ],
      { ...INDEX_BUDGET, maxPageTerms: 2_000 },
      (line) => log.push(line),
    );
    expect(log).toEqual([
      `[knowledge] skipped ${site}/many: the index would hold more than 2000 distinct terms from one page`,
    ]);
    expect([...new Set(index.passages.map((passage) => passage.url.slice(site.length)))]).toEqual(['/some', '/hours']);
    // The default: a page of 200,000 unique words (the red team's) is refused, an ordinary page has a few thousand.
    expect(INDEX_BUDGET.maxPageTerms).toBeLessThanOrEqual(25_000);
  });
});

describe('the index worker', () => {
  it('gives the kept text indexToKeep gives, over more passages than one batch, and the budget’s log lines', async () => {
    const pages = Array.from({ length: 300 }, (_, n) =>
      page(`/p${n}`, `Guide ${n}`, `Deliveries for topic ${n} take two days, and the shop opens at nine.`),
    );
    const words = Array.from({ length: 200 }, (_, n) => `w${n.toString(36)}`).join(' ');
    const passages = [...pages, page('/words', 'Words', words)].flatMap(chunkPage);
    const budget = { maxTextChars: 1_000_000, maxPassages: 1_000, maxTerms: 500, maxPageTerms: 1_000 };
    const here: string[] = [];
    const there: string[] = [];
    const { kept } = await indexToKeep(passages, budget, (line) => here.push(line));
    expect(await keptInWorker(passages, budget, (line) => there.push(line))).toBe(kept);
    expect(there).toEqual(here);
    expect(there).toEqual([`[knowledge] skipped ${site}/words: the index would hold more than 500 distinct terms`]);
  });
});
