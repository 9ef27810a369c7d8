// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INDEX_BUDGET } from '../knowledge/knowledge.ts';
import { startSiteKnowledge } from './knowledge-sync.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('startSiteKnowledge', () => {
  it('indexes within the budget the settings give (KNOWLEDGE_INDEX_TEXT), naming the page it leaves out', async () => {
    dir = await mkdtemp(join(tmpdir(), 'site-knowledge-'));
    await writeFile(join(dir, 'hours.md'), '# Opening hours\n\nThe shop opens Monday to Saturday from nine.\n');
    await writeFile(join(dir, 'returns.md'), '# Returns\n\nReturn any garden tool within thirty days.\n');
    const log: string[] = [];
    const settings = { dataDir: join(dir, 'data'), refreshHours: 24, indexBudget: { ...INDEX_BUDGET, maxPassages: 1 } };
    const knowledge = startSiteKnowledge([{ path: dir, url: 'https://shop.example/' }], settings, (line) =>
      log.push(line),
    );
    await knowledge.ready;
    knowledge.stop();
    const found = (latest: string) => knowledge.retrieve({ latest }).map(({ passage }) => passage.page);
    expect(found('When does the shop open on Saturday?')).toEqual(['https://shop.example/hours']);
    expect(found('Can I return a garden tool?')).toEqual([]);
    expect(log).toContain(
      '[knowledge] skipped https://shop.example/returns: the index would hold more than 1 passages',
    );
  });
});
