import { describe, expect, it } from 'vitest';
import type { Page } from '../sources/page.ts';
import { searchWordsReason } from './explain.ts';
import { RETRIEVAL_LIMITS } from './retrieval-limits.ts';
import { retrieve } from './retrieve.ts';
import { buildIndex, type KnowledgeIndex } from './search-index.ts';
import { PAGES, page, site } from './test-pages.ts';

const pagesOf = (index: KnowledgeIndex, question: Parameters<typeof retrieve>[1]) =>
  retrieve(index, question).map(({ passage }) => passage.url.slice(site.length));

describe('retrieval', async () => {
  const index = await buildIndex(PAGES);

  it('finds the page that answers a question, first', () => {
    expect(pagesOf(index, { latest: 'How many days do I have to return an item?' })[0]).toBe('/returns');
    expect(pagesOf(index, { latest: 'What does shipping cost?' })[0]).toBe('/shipping');
    expect(pagesOf(index, { latest: 'Are the spade handles replaceable?' })[0]).toBe('/spades');
  });

  it('gives a Japanese question the Japanese page', () => {
    expect(pagesOf(index, { latest: '返品はいつまでできますか？' })).toEqual(['/ja/returns']);
  });

  it('stems for the visitor’s language', () => {
    expect(
      pagesOf(index, { latest: 'Wie viele Werktage dauern Lieferungen nach Deutschland?', language: 'de' }),
    ).toEqual(['/de/versand']);
  });

  it('gives off-topic questions no passages at all', () => {
    for (const latest of [
      'What is the capital of Australia?',
      'How do I bake sourdough bread?',
      'Who won the world cup?',
    ]) {
      expect(retrieve(index, { latest })).toEqual([]);
    }
  });

  it('looks a follow-up up with the previous question’s words, but never gives a new topic the previous pages', () => {
    expect(pagesOf(index, { latest: 'And on Saturdays?', previous: 'When does the shop open?' })).toEqual(['/hours']);
    // A message whose own words find nothing gets nothing, whatever came before.
    expect(retrieve(index, { latest: 'And is that so?', previous: 'When does the shop open?' })).toEqual([]);
    expect(retrieve(index, { latest: 'Who won the world cup?', previous: 'When does the shop open?' })).toEqual([]);
    const pages = pagesOf(index, { latest: 'Are spades forged?', previous: 'When does the shop open?' });
    expect([...new Set(pages)]).toEqual(['/spades']);
  });

  it('looks a follow-up up in its standalone form alone when the model’s words resolve it, and NONE finds nothing', () => {
    const previous = 'Are the spades forged?';
    expect(pagesOf(index, { latest: 'And when are you open?', previous, searchWords: 'opening hours shop' })).toEqual([
      '/hours',
    ]);
    // Words that only repeat the message resolve nothing: the previous question's words help it, as without a model.
    expect(pagesOf(index, { latest: 'And the handles?', previous, searchWords: 'handles' })).toContain('/spades');
    expect(retrieve(index, { latest: 'Are spades forged?', searchWords: 'NONE' })).toEqual([]);
  });

  it('builds the same index whatever order the pages come in', async () => {
    const reversed = await buildIndex([...PAGES].reverse());
    expect(reversed.passages).toEqual(index.passages);
    expect(retrieve(reversed, { latest: 'refund card days' })).toEqual(retrieve(index, { latest: 'refund card days' }));
  });
});

const mostFromOnePage = (found: ReturnType<typeof retrieve>) => {
  const counts = new Map<string, number>();
  for (const { passage } of found) counts.set(passage.url, (counts.get(passage.url) ?? 0) + 1);
  return Math.max(...counts.values());
};

describe('the budget', async () => {
  const sentence = 'The garden spade with a forged blade digs clay. ';
  const spadePage = (n: number): Page =>
    page(`/spade-${n}`, `Spade ${n}`, 'en', [
      ['One', sentence.repeat(30)],
      ['Two', sentence.repeat(30)],
      ['Three', sentence.repeat(30)],
      ['Four', sentence.repeat(30)],
    ]);
  const index = await buildIndex([...PAGES, spadePage(1), spadePage(2), spadePage(3)]);

  it('gives at most 5 passages, about 1,500 tokens, and at most 3 from one page', () => {
    const found = retrieve(index, { latest: 'forged spade blade for clay' });
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThanOrEqual(RETRIEVAL_LIMITS.maxPassages);
    expect(found.reduce((sum, { passage }) => sum + passage.tokens, 0)).toBeLessThanOrEqual(RETRIEVAL_LIMITS.maxTokens);
    expect(mostFromOnePage(found)).toBeLessThanOrEqual(3);
    const unbudgeted = retrieve(
      index,
      { latest: 'forged spade blade for clay' },
      { ...RETRIEVAL_LIMITS, maxTokens: 10_000 },
    );
    // Three from the page with the most; a page ranking below the passages it left out is not listed.
    expect(mostFromOnePage(unbudgeted)).toBe(3);
    const unlimited = retrieve(
      index,
      { latest: 'forged spade blade for clay' },
      { ...RETRIEVAL_LIMITS, maxTokens: 10_000, maxPerPage: 10 },
    );
    expect(unlimited).toHaveLength(5);
  });
});

describe('keywords', () => {
  it("make a page findable by words its text never uses, with its title's weight", async () => {
    const contact = (keywords?: string): Page => ({
      url: `${site}/contact`,
      title: 'Contact',
      language: 'en',
      sections: [{ headings: ['Contact'], text: 'Call us on 0123 456 789 from Tuesday to Saturday.' }],
      ...(keywords ? { keywords } : {}),
    });
    const question = { latest: 'What is your telephone number?' };
    const plain = await buildIndex([...PAGES, contact()]);
    expect(retrieve(plain, question).map(({ passage }) => passage.page)).not.toContain(`${site}/contact`);
    const helped = await buildIndex([...PAGES, contact('telephone, phone number')]);
    expect(retrieve(helped, question).map(({ passage }) => passage.page)[0]).toBe(`${site}/contact`);
  });
});

describe('titles', () => {
  it('rank the page whose title holds a word too common to search the text for', async () => {
    // "Merge" is in more passages than `commonMinimum`: the text search leaves it out, git-merge's title still counts it.
    const manual = await buildIndex([
      ...['log', 'rebase', 'pull', 'notes'].map((name) =>
        page(`/git-${name}`, `git-${name}`, 'en', [[name, `Merge the branches with ${name}.`]]),
      ),
      page('/gitworkflows', 'gitworkflows', 'en', [
        ['Conflicts', 'Resolve a conflict, then resolve the next conflict.'],
      ]),
      page('/git-merge', 'git-merge', 'en', [['Description', 'Edit the files to resolve each conflict.']]),
    ]);
    const limits = { ...RETRIEVAL_LIMITS, commonShare: 0, commonMinimum: 3 };
    const found = retrieve(manual, { latest: 'How do I resolve a merge conflict?' }, limits);
    expect(found.map(({ passage }) => passage.page.slice(site.length))).toEqual(['/git-merge', '/gitworkflows']);
    expect(found[0].coverage).toBe(1);
  });
});

describe('whether to ask a model for search words', async () => {
  const index = await buildIndex(PAGES);

  it('does not, when a passage holds all of the question in the pages’ words', () => {
    expect(searchWordsReason(index, { latest: 'Do you ship abroad?' })).toBeUndefined();
  });

  it('does, when a passage matches but the question has a word that no page uses', () => {
    // "Ship" and "abroad" find their passage, over the confident share; "drone" is the visitor's word alone.
    const question = { latest: 'Do you ship abroad by drone?' };
    expect(retrieve(index, question)[0].coverage).toBeGreaterThanOrEqual(RETRIEVAL_LIMITS.confidentCoverage);
    expect(searchWordsReason(index, question)).toBe('not-found');
  });

  it('does, in the visitor’s language, when no page is in it', () => {
    expect(searchWordsReason(index, { latest: 'Combien coûte la livraison ?', language: 'fr' })).toBe('language');
  });

  it('does for every follow-up, even one whose words alone find a confident passage', () => {
    const latest = 'Do you ship abroad?';
    expect(retrieve(index, { latest })[0].coverage).toBeGreaterThanOrEqual(RETRIEVAL_LIMITS.confidentCoverage);
    expect(searchWordsReason(index, { latest, previous: 'How much is shipping?' })).toBe('follow-up');
  });

  it('does for every question on a large site', () => {
    const limits = { ...RETRIEVAL_LIMITS, largeSite: index.passages.length };
    expect(searchWordsReason(index, { latest: 'Do you ship abroad?' }, limits)).toBe('large-site');
    expect(searchWordsReason(index, { latest: 'Do you ship abroad?' })).toBeUndefined();
  });

  it('does, when the words a passage holds are few of the question’s and the rest are common', async () => {
    // "Find", "commit" and "introduced" are in more passages than `commonMinimum`: the search leaves them out, so
    // the "Bugs" passage holds all the weight searched for, yet little of the question.
    const manual = await buildIndex([
      ...['bisect', 'log', 'blame', 'show'].map((name) =>
        page(`/git-${name}`, `git-${name}`, 'en', [[name, `Find the commit that introduced the change with ${name}.`]]),
      ),
      page('/gitweb', 'gitweb', 'en', [['Bugs', 'Report bugs to the mailing list.']]),
    ]);
    const limits = { ...RETRIEVAL_LIMITS, commonShare: 0, commonMinimum: 3 };
    const latest = 'How do I find which commit introduced a bug?';
    expect(retrieve(manual, { latest }, limits)[0].coverage).toBe(1);
    expect(searchWordsReason(manual, { latest }, limits)).toBe('not-found');
    expect(searchWordsReason(manual, { latest: 'How do I report bugs?' }, limits)).toBeUndefined();
  });
});
