// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { chunkPage } from './chunk.ts';
import { keptInWorker } from './index-in-worker.ts';
import type { Page } from './page.ts';
import { indexToKeep } from './search-index.ts';

const site = 'https://shop.example.com';
const page = (path: string, title: string, text: string): Page => ({
  url: `${site}${path}`,
  title,
  language: 'en',
  sections: [{ headings: [title], text }],
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
