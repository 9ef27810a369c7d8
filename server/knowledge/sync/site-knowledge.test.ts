import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reportText, storeReport } from '../../cli/knowledge-report.ts';
import { buildServerParts } from '../../server-parts.ts';
import { INDEX_BUDGET, type IndexBudget } from '../library/library.ts';
import { openKnowledgeStore } from '../store/knowledge-store.ts';
import type { Knowledge } from './knowledge-sync.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the site library the server parts build', () => {
  it('indexes within the budget the settings give (KNOWLEDGE_INDEX_TEXT), naming the page it leaves out', async () => {
    dir = await mkdtemp(join(tmpdir(), 'site-knowledge-'));
    await writeFile(join(dir, 'hours.md'), '# Opening hours\n\nThe shop opens Monday to Saturday from nine.\n');
    await writeFile(join(dir, 'returns.md'), '# Returns\n\nReturn any garden tool within thirty days.\n');
    const log: string[] = [];
    const settings = { dataDir: join(dir, 'data'), refreshHours: 24, indexBudget: { ...INDEX_BUDGET, maxPassages: 1 } };
    const parts = buildServerParts(
      { store: settings },
      { sources: [{ path: dir, url: 'https://shop.example/' }], log: (line) => log.push(line) },
    );
    const knowledge = parts.knowledge as Knowledge;
    await knowledge.ready;
    await parts.close();
    const found = (latest: string) => knowledge.retrieve({ latest }).map(({ passage }) => passage.page);
    expect(found('When does the shop open on Saturday?')).toEqual(['https://shop.example/hours']);
    expect(found('Can I return a garden tool?')).toEqual([]);
    expect(log).toContain(
      '[knowledge] skipped https://shop.example/returns: the index would hold more than 1 passages',
    );
    // `npm run knowledge -- report` says so too, from the kept index, not only the log.
    const store = openKnowledgeStore({ dataDir: settings.dataDir }, () => {});
    try {
      const indexed = async (budget: IndexBudget) =>
        (await storeReport(store, [dir], budget))[0].pages.map(({ url, indexed }) => [url, indexed]);
      expect(await indexed(settings.indexBudget)).toEqual([
        ['https://shop.example/hours', true],
        ['https://shop.example/returns', false],
      ]);
      const text = reportText(await storeReport(store, [dir], settings.indexBudget)).split('\n');
      // (The addresses not taken are the store's own files: its folder is inside the site's here.)
      expect(text).toContainEqual(
        expect.stringMatching(/^ {2}2 pages, \d addresses not taken, 1 left out of the index by its budget$/),
      );
      expect(text.find((line) => line.startsWith('  https://shop.example/returns '))).toMatch(
        /, left out of the index: it would take the index past its budget \(KNOWLEDGE_INDEX_TEXT\)$/,
      );
      expect(text.find((line) => line.startsWith('  https://shop.example/hours '))).not.toMatch(/left out/);
      // With another budget the kept index is not the one these pages would get: the report does not guess.
      expect(await indexed(INDEX_BUDGET)).toEqual([
        ['https://shop.example/hours', null],
        ['https://shop.example/returns', null],
      ]);
    } finally {
      await store.close();
    }
  });
});
