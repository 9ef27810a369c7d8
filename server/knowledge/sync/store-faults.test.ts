// The library when its store's disk is full: a real tmpfs of 512 KB (testing/small-disk.ts) as DATA_DIR.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type KnowledgeSite, sitemapXml, sitePage, startKnowledgeSite } from '../../../testing/knowledge-site.ts';
import { until } from '../../../testing/proxy-app.ts';
import { type SmallDisk, smallDisk } from '../../../testing/small-disk.ts';
import { type KnowledgeStore, openKnowledgeStore } from '../store/knowledge-store.ts';
import { type Knowledge, startKnowledge } from './knowledge-sync.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const article = (heading: string, text: string) =>
  `<h1>${heading}</h1><p>${text} ${'Bring the bike in before noon. '.repeat(300)}</p>`;

/** A site with two sitemaps: `/sitemap.xml` lists the opening hours, `/sitemap-prices.xml` the prices. */
async function bikeShop(): Promise<KnowledgeSite> {
  const site = await startKnowledgeSite({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  });
  site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${site.origin}/hours`]) });
  site.set('/sitemap-prices.xml', { type: 'application/xml', body: sitemapXml([`${site.origin}/prices`]) });
  site.set('/hours', { body: sitePage({ title: 'Hours', body: article('Hours', 'The workshop opens at eight.') }) });
  site.set('/prices', {
    body: sitePage({ title: 'Prices', body: article('Prices', 'A puncture repair is 12 euros.') }),
  });
  cleanups.push(() => site.close());
  return site;
}

describe('a knowledge store on a full disk', () => {
  it('keeps the last good store, leaves no temporary file, and backs off before reading the site again', async () => {
    const disk: SmallDisk = smallDisk();
    cleanups.push(() => disk.remove());
    const site = await bikeShop();
    const hours = { sitemap: `${site.origin}/sitemap.xml` };
    const prices = { sitemap: `${site.origin}/sitemap-prices.xml` };
    const open = (): KnowledgeStore => {
      const store = openKnowledgeStore({ dataDir: disk.path }, () => {});
      cleanups.push(() => store.close());
      return store;
    };
    const library = (sources: (typeof hours)[], log: (line: string) => void): Knowledge => {
      // The poll is long and the store's retry short: a sync whose write failed must wait like a failed sync.
      const started = startKnowledge(sources, { store: open(), log, pollMs: 5_000, retryCapMs: 100 });
      cleanups.push(() => started.stop());
      return started;
    };
    const first = library([hours], () => {});
    await first.ready;
    first.stop();

    // Room for the sync's lock, not for the pages it reads.
    disk.fill(8);
    const lines: string[] = [];
    // A source added while the disk is full: it is due until a sync of it is written.
    const second = library([hours, prices], (line) => lines.push(line));
    await until(() => lines.some((line) => line.includes('ENOSPC')), 'a failed write', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    expect(site.requests.filter(({ path }) => path === '/prices')).toHaveLength(1);
    expect(lines.filter((line) => line.includes('could not be written'))).toEqual([
      expect.stringMatching(
        /^\[knowledge\] the sync's pages could not be written to files in .*: ENOSPC.*; the last store is kept, and synced again in 5 s$/,
      ),
    ]);
    expect(readdirSync(join(disk.path, 'knowledge')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // The last good store answers meanwhile.
    const answer = (question: string) => second.retrieve({ latest: question }).map(({ passage }) => passage.url);
    expect(answer('When does the workshop open?')).toContain(`${site.origin}/hours`);

    disk.free();
    await second.refresh();
    expect(answer('How much is a puncture repair?')).toContain(`${site.origin}/prices`);
    expect(second.status().sources).toEqual(expect.arrayContaining([{ source: prices.sitemap, state: 'ok' }]));
  }, 90_000);
});
