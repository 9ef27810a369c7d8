// The first sync of bench/knowledge-sync.ts in a process of its own, as `npm run knowledge -- sync` runs before the
// servers start, so that its memory is the sync's alone: in the bench's own process it also held whatever the runs
// before it left (the other home's, the retrieval bench's). Prints one line of JSON: the sync's seconds, and the
// process's resident memory at its peak (sampled every 20 ms) and once the sync is done.
import { openKnowledgeStore, type StoreSettings, syncOnce } from '../server/knowledge/knowledge.ts';
import { syncOptions } from './knowledge-sync-site.ts';

export interface FirstSync {
  seconds: number;
  rssPeakMb: number;
  rssAfterMb: number;
}

const { settings, sitemap, pages } = JSON.parse(process.argv[2]) as {
  settings: StoreSettings;
  sitemap: string;
  pages: number;
};
const store = openKnowledgeStore(settings, () => {});
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const started = performance.now();
// As the command does: the sync, then its index kept beside it.
await syncOnce(store, [{ sitemap, maxPages: pages }], syncOptions(pages));
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
const after = process.memoryUsage().rss;
await store.close();
const figures: FirstSync = { seconds, rssPeakMb: Math.max(peak, after) / 1e6, rssAfterMb: after / 1e6 };
console.log(JSON.stringify(figures));
