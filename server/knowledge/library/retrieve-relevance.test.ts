import { describe, expect, it } from 'vitest';
import type { Page } from '../sources/page.ts';
import { explain } from './explain.ts';
import { RETRIEVAL_LIMITS } from './retrieval-limits.ts';
import { retrieve } from './retrieve.ts';
import { buildIndex } from './search-index.ts';
import { PAGES, page, site } from './test-pages.ts';

describe('the relevance rule', () => {
  const paths = (found: ReturnType<typeof retrieve>) => found.map(({ passage }) => passage.url.slice(site.length));

  it('does not take a passage that holds one of the question’s several words, however rare', async () => {
    // "Tomorrow" is rarer than "weather", so it alone holds more than `minCoverage` of the question's weight.
    const index = await buildIndex([
      ...PAGES,
      page('/dates', 'Dates', 'en', [['Special values', 'The input tomorrow means midnight of the next day.']]),
      ...['north', 'south', 'east'].map((side) =>
        page(`/terrace-${side}`, `Terrace ${side}`, 'en', [['Seats', `Seats on the ${side} terrace in any weather.`]]),
      ),
    ]);
    expect(retrieve(index, { latest: 'What will the weather be like tomorrow?' })).toEqual([]);
    expect(paths(retrieve(index, { latest: 'Which input means tomorrow?' }))).toEqual(['/dates']);
  });

  it('counts the words a page holds in different sections together', async () => {
    // Neither passage holds more than half of the question; the page holds all of it.
    const care = page('/care', 'Care', 'en', [
      ['Linen', 'Wash linen warm.'],
      ['Bags', 'Rewax canvas yearly.'],
    ]);
    const index = await buildIndex([...PAGES, care]);
    expect(new Set(paths(retrieve(index, { latest: 'Can I wash canvas?' })))).toEqual(new Set(['/care']));
  });

  it('ranks the passage holding all of the question above one holding part of it many times', async () => {
    const index = await buildIndex([
      ...PAGES,
      page('/edges', 'Edges', 'en', [['Steel', 'Forged steel edges, steel edges.']]),
      page('/finishing', 'Finishing', 'en', [['Polished edges', 'Every edge of forged steel is polished by hand.']]),
      page('/floors', 'Floors', 'en', [['Oak', 'The shop has polished oak floors.']]),
      page('/boots', 'Boots', 'en', [['Leather', 'Our boots are polished leather.']]),
    ]);
    const found = retrieve(index, { latest: 'Which forged steel edge is polished?' });
    expect(found[0].score).toBeLessThan(found[1].score);
    expect(paths(found)).toEqual(['/finishing', '/edges']);
  });

  it('finds a name joined by underscores as one word, before pages holding its parts', async () => {
    const index = await buildIndex([
      ...PAGES,
      page('/disks', 'Disks', 'en', [['Buffers', 'Shared disks keep shared buffers; the buffers are shared.']]),
      page('/settings', 'Settings', 'en', [['Memory', 'Set shared_buffers to a quarter of the memory.']]),
    ]);
    expect(paths(retrieve(index, { latest: 'How large should shared_buffers be?' }))[0]).toBe('/settings');
  });

  it('weighs a word that few passages hold as one in `rareShare` of them', async () => {
    // "Forged" is in one passage, "ship" in a few: a share of half the passages weighs both as in that many.
    const index = await buildIndex(PAGES);
    const weights = (rareShare: number) =>
      explain(index, { latest: 'forged ship' }, { ...RETRIEVAL_LIMITS, rareShare }).texts[0].terms.map(
        ({ weight }) => weight,
      );
    const [forged, ship] = weights(0);
    expect(forged).toBeGreaterThan(ship);
    const [floored, shipFloored] = weights(0.5);
    expect(floored).toBe(shipFloored);
    expect(floored).toBeLessThan(forged);
  });

  it('counts a word the site uses in passing only near another of its message’s words, or in a heading', async () => {
    const filler = 'The clerk files the reports in the grey cabinet beside the window every morning.';
    const index = await buildIndex([
      ...PAGES.filter(({ url }) => !url.endsWith('/hours')),
      // "Sunday" in a list of date fields, far from "hour"; "calendars" beside it, a word of another question.
      page('/fields', 'Date fields', 'en', [
        ['Fields', `dow counts the days of the week from Sunday, as calendars do. ${filler} hour gives the hour.`],
      ]),
      page('/parking', 'Parking', 'en', [['Weekends', 'Parking is free on Sunday for the first hour.']]),
      page('/sunday', 'Weekend', 'en', [['Sunday', `The market opens at ten. ${filler} Stalls close after an hour.`]]),
    ]);
    // Words in under `rareShare` of the passages (here three) are used in passing: "hour", "Sunday", "calendars".
    const limits = { ...RETRIEVAL_LIMITS, rareShare: 0.3 };
    const pages = (question: Parameters<typeof retrieve>[1]) => new Set(paths(retrieve(index, question, limits)));
    expect(pages({ latest: 'Which hour on Sunday?' })).toEqual(new Set(['/parking', '/sunday']));
    // The previous question's "calendars" stands beside "Sunday" on the fields page: it does not vouch for the follow-up's.
    expect(pages({ latest: 'Which hour on Sunday?', previous: 'Do you sell calendars?' })).toEqual(
      new Set(['/parking', '/sunday']),
    );
    // Before the rule (no window), the fields page held the whole question.
    const before = { ...limits, passingWindow: Number.POSITIVE_INFINITY };
    expect(paths(retrieve(index, { latest: 'Which hour on Sunday?' }, before))).toContain('/fields');
  });

  it('lists the pages a question is about: a page ranking far below the best is left out, and at most `maxPages`', async () => {
    const index = await buildIndex([
      ...PAGES,
      page('/pruning', 'Pruning roses', 'en', [['Roses', 'Prune roses in March, above an outward bud.']]),
      // Diaries that name roses and pruning once, in a long day's notes.
      ...['april', 'may', 'june', 'july'].map((month) =>
        page(`/diary-${month}`, `Diary: ${month}`, 'en', [
          [
            'Notes',
            `We pruned roses. ${'The bees came to the lavender by the gate, and the hens laid well. '.repeat(12)}`,
          ],
        ]),
      ),
    ]);
    const question = { latest: 'When should I prune roses?' };
    const found = explain(index, question).candidates;
    expect(found.find(({ passage }) => passage.page.endsWith('/pruning'))?.verdict).toBe('given');
    expect(found.filter(({ verdict }) => verdict === 'below relativeRank').length).toBeGreaterThan(0);
    expect(paths(retrieve(index, question))).toEqual(['/pruning']);
    // Without the relative cut, the pages that only share "shears" come too, three pages at most.
    const loose = { ...RETRIEVAL_LIMITS, relativeRank: 0 };
    expect(new Set(retrieve(index, question, loose).map(({ passage }) => passage.page)).size).toBe(3);
    expect(explain(index, question, loose).candidates.some(({ verdict }) => verdict === 'maxPages')).toBe(true);
  });

  it("does not cover a question through the visitor's one word when the model's words repeat the words the pages lack", async () => {
    const index = await buildIndex([
      ...PAGES,
      page('/bags', 'Bags', 'en', [['Repairs', 'We repair the broken handles of our bags for free.']]),
      page('/delivery', 'Delivery', 'en', [['Delivery time', 'The delivery time is two working days.']]),
      page('/contact', 'Contact', 'en', [['Call or write', 'Call us on 030 1234 or write to the workshop.']]),
    ]);
    // "repair" is the visitor's own word, "laptop" one the pages lack: the model added nothing that finds the page.
    expect(retrieve(index, { latest: 'Do you repair laptops?', searchWords: 'laptop repair service' })).toEqual([]);
    // The model's "time" found the page, but two of the visitor's words are missing from every page.
    expect(
      retrieve(index, { latest: 'How long does it take to cook pasta?', searchWords: 'pasta cooking time' }),
    ).toEqual([]);
    // The model's "call" bridges the visitor's "phone", which no page uses.
    expect(paths(retrieve(index, { latest: 'What is your phone number?', searchWords: 'call us phone' }))).toEqual([
      '/contact',
    ]);
  });

  it("does not cover a question as typed through one of the visitor's words when more of them are on no page", async () => {
    const index = await buildIndex([
      ...PAGES,
      page('/bags', 'Bags', 'en', [['Repairs', 'How long a repair takes: about two weeks.']]),
      page('/payment', 'Payment', 'en', [['Methods', 'We accept cards and PayPal.']]),
    ]);
    // "cook" and "pasta" are on no page, "long" is.
    expect(retrieve(index, { latest: 'How long does it take to cook pasta?' })).toEqual([]);
    // One word missing beside one found is a small site's few pages ("policy" where the page says "returns").
    expect(paths(retrieve(index, { latest: 'What is your returns policy?' }))).toContain('/returns');
    // A question in a language that no page is in misses the pages' words by its language, not its subject.
    expect(paths(retrieve(index, { latest: 'Acceptez-vous PayPal ?', language: 'fr' }))).toEqual(['/payment']);
  });

  it('lists no page ranking below passages that `maxPerPage` left out of a listed page, unless its title names the question', async () => {
    const question = { latest: 'When should I prune roses?' };
    const months = ['March', 'June', 'Tools', 'Walls', 'Old wood'];
    const verdicts = async (title: string, other: Page) => {
      const sections = months.map((month): [string, string] => [
        month,
        `Prune roses in ${month}: prune the roses, prune the rose stems.`,
      ]);
      const found = explain(await buildIndex([...PAGES, page('/pruning', title, 'en', sections), other]), question);
      return (path: string) =>
        found.candidates.filter(({ passage }) => passage.page.endsWith(path)).map((c) => c.verdict);
    };
    const notes =
      'Prune roses? We pruned the roses and the rose beds by the gate, then the hens laid well in the barn.';
    const diary = await verdicts('Garden work', page('/diary', 'Garden diary', 'en', [['Notes', notes]]));
    expect(diary('/pruning')).toContain('maxPerPage');
    expect(diary('/diary')).toEqual(['a listed page ranks above']);
    // A page whose title names a distinctive word of the question is listed, however the other page ranks.
    const care = await verdicts('Pruning roses', page('/care', 'Rose care', 'en', [['Notes', 'Prune them in March.']]));
    expect(care('/pruning')).toContain('maxPerPage');
    expect(care('/care')).toEqual(['given']);
  });

  it("gives the pages the model's words find, and the question as typed only when they find none", async () => {
    const index = await buildIndex([
      ...PAGES,
      page('/bags', 'Bags', 'en', [['The Weekender', 'The Weekender is a large canvas bag; price 189 euros.']]),
      page('/costs', 'Delivery costs', 'en', [['Costs', 'What delivery costs depends on the weight of the parcel.']]),
    ]);
    const followUp = { latest: 'What does it cost?', previous: 'Tell me about the Weekender.' };
    expect(paths(retrieve(index, { ...followUp, searchWords: 'Weekender bag price' }))).toEqual(['/bags']);
    expect(
      explain(index, { ...followUp, searchWords: 'Weekender bag price' }).candidates.find(({ passage }) =>
        passage.page.endsWith('/costs'),
      )?.verdict,
    ).toBe('the model’s words found pages');
    // Words that find nothing leave the question as typed to find what it can.
    expect(paths(retrieve(index, { ...followUp, searchWords: 'zqx unknown words' }))).toContain('/costs');
  });

  it('gives a follow-up the page about both messages after its own best page, and no other question that page', async () => {
    const index = await buildIndex([
      ...PAGES,
      // Three pages that hold the message's one word more often than the page about both messages does.
      ...['btree', 'hash', 'brin'].map((kind) =>
        page(`/${kind}`, `${kind} indexes`, 'en', [
          ['Indexes', `A ${kind} index is indexed fast; index it, index it.`],
        ]),
      ),
      page('/json', 'JSON types', 'en', [
        ['jsonb', 'jsonb stores a parsed binary form of the document.'],
        ['jsonb indexing', 'A jsonb column can be indexed with GIN.'],
      ]),
      // A page holding the next question's words in passing, not about them.
      page('/catalogue', 'Catalogue', 'en', [['Tools', 'Every forged steel tool is indexed in the catalogue.']]),
    ]);
    const followUp = { latest: 'Can it be indexed?', previous: 'What is the jsonb type?' };
    const found = paths(retrieve(index, followUp));
    expect(found).toContain('/json');
    expect(new Set(found).size).toBeLessThanOrEqual(RETRIEVAL_LIMITS.maxPages);
    // The message alone, and after a question whose pages do not hold it, lists the index pages only.
    expect(paths(retrieve(index, { latest: 'Can it be indexed?' }))).not.toContain('/json');
    // Nor a page that only holds the previous question's words in its text: it is not about them.
    const after = paths(retrieve(index, { latest: 'Can it be indexed?', previous: 'Which steel is forged?' }));
    expect(after).not.toContain('/json');
    expect(after).not.toContain('/catalogue');
  });

  it('gives a follow-up no page about the previous question that holds only one of its several words', async () => {
    const index = await buildIndex([
      ...PAGES,
      ...['btree', 'hash', 'brin'].map((kind) =>
        page(`/${kind}`, `${kind} indexes`, 'en', [['Parsing', `Parsing a ${kind} key is slow.`]]),
      ),
      ...['disks', 'networks', 'locks'].map((thing) => page(`/${thing}`, thing, 'en', [['Speed', `Slow ${thing}.`]])),
      // "Parsing" is rarer than "slow" here, so it alone holds most of the message's weight.
      page('/json', 'JSON types', 'en', [['jsonb', 'jsonb stores the document parsed, in a binary form.']]),
    ]);
    const found = paths(retrieve(index, { latest: 'Is parsing slow?', previous: 'What is the jsonb type?' }));
    expect(found.length).toBeGreaterThan(0);
    expect(found).not.toContain('/json');
  });
});
