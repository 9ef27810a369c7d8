// Chat latency while the knowledge library syncs, for the sync benchmark (knowledge-sync.ts): the cannon of
// `npm run load` (in its own process, as are the fake upstream and the site) against the app answering from the
// site's pages, first with no sync, then all through a sync that finds every page changed (fetched, extracted,
// chunked, stored and indexed again), its index built at the end included.
import { CHAT_COMPLETIONS_PATH } from '../contract/llm.ts';
import { openKnowledgeStore, type StoreSettings, startKnowledge, syncOnce } from '../server/knowledge/knowledge.ts';
import { chatBody, listenBenchApp, modelUpstream } from './bench-app.ts';
import { cannon, spawnScript } from './cannon-run.ts';
import { siteBudget, syncOptions, topicWord } from './knowledge-sync-site.ts';

const CONNECTIONS = 20;
/** The cannon's run without a sync, after its settling time; during the sync it fires until the sync is done. */
const QUIET_SECONDS = 10;
const SETTLE_SECONDS = 3;

const question = chatBody(`How do I ${topicWord(7, 3)} the ${topicWord(7, 4)}?`);

/** Chat p50 / p99 without a sync and during one, on a store in `settings` already holding the site's first sync. */
export async function chatDuringSync(settings: StoreSettings, pages: number) {
  const site = await spawnScript('bench/knowledge-sync-site.ts', [String(pages)]);
  const upstream = await modelUpstream();
  const sources = [{ sitemap: `${site.output}/sitemap.xml`, maxPages: pages }];
  const store = openKnowledgeStore(settings, () => {});
  const { budget } = siteBudget(pages);
  await syncOnce(store, sources, syncOptions(pages));
  const knowledge = startKnowledge(sources, { store, ...budget, log: () => {}, maxPages: pages, concurrency: 8 });
  await knowledge.ready;
  const server = await listenBenchApp(upstream.output, { knowledge });
  const url = server.url + CHAT_COMPLETIONS_PATH;
  const fire = { url, body: question, connections: CONNECTIONS };
  try {
    const quiet = await cannon({ ...fire, seconds: SETTLE_SECONDS + QUIET_SECONDS, settleSeconds: SETTLE_SECONDS });
    // The site changes and the sync starts once the cannon has started (a second or two) and settled; it fires until the
    // sync is done.
    let started = 0;
    const settled = new Promise((resolve) => setTimeout(resolve, (SETTLE_SECONDS + 2) * 1000));
    const sync = settled.then(async () => {
      await fetch(`${site.output}/edition`, { method: 'POST' });
      started = performance.now();
      await knowledge.refresh();
      return (performance.now() - started) / 1000;
    });
    const during = await cannon({ ...fire, seconds: 3600, settleSeconds: SETTLE_SECONDS }, sync);
    return {
      quiet: quiet.steady,
      during: { ...during.steady, requests: Math.round(during.steady.perSecond * (await sync)) },
      syncSeconds: await sync,
      errors: quiet.unexpected + during.unexpected,
    };
  } finally {
    knowledge.stop();
    await server.close();
    await store.close();
    site.stop();
    upstream.stop();
  }
}
