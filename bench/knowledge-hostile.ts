// The knowledge library under a hostile site, for `npm run bench:knowledge`: chat latency (through the real app, to a
// fake provider on loopback) while a site of 1,000 ordinary pages and 20 pathological ones is crawled, against the
// same requests with no crawl, and the process's peak RSS during the crawl (the extraction worker's included; the site
// is served by a child process, see knowledge-hostile-site.ts, so its bodies are not).
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CHAT_COMPLETIONS_PATH } from '../contract/llm.ts';
import { openKnowledgeStore, startKnowledge } from '../server/knowledge/knowledge.ts';
import { startFakeProvider } from '../testing/fake-provider.ts';
import { listenBenchApp } from './bench-app.ts';
import { ORDINARY } from './knowledge-hostile-site.ts';
import { met, ms, quantile } from './table.ts';

/** The target: what the crawl may add to chat's p99. */
const ADDED_P99_MS = 20;

/** The site in its child process, once it listens; `edition` rewrites its ordinary pages. */
async function startSite() {
  const child: ChildProcess = fork(new URL('./knowledge-hostile-site.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
  });
  const [ready] = (await once(child, 'message')) as [{ origin: string; pages: number }];
  return {
    ...ready,
    edition: async (text: string) => {
      child.send(text);
      await once(child, 'message');
    },
    close: () => {
      child.disconnect();
      return once(child, 'exit');
    },
  };
}

/** Asks one chat question after another until `until` says stop; the latencies in ms. */
async function chatLatencies(url: string, until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  for (let n = 0; !until(); n++) {
    const asked = performance.now();
    const content = n % 2 ? 'When does the shop open?' : 'How long do deliveries take?';
    const response = await fetch(url + CHAT_COMPLETIONS_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: 100 }),
    });
    await response.text();
    times.push(performance.now() - asked);
  }
  return times;
}

/** The bench's two hostile rows: chat latency during the crawl, and its peak RSS. */
export async function hostileRows(): Promise<{ rows: string[][]; data: Record<string, number> }> {
  const provider = await startFakeProvider({ record: false });
  const site = await startSite();

  const dataDir = await mkdtemp(join(tmpdir(), 'bench-hostile-'));
  const store = openKnowledgeStore({ dataDir }, () => {});
  const knowledge = startKnowledge([{ sitemap: `${site.origin}/sitemap.xml` }], {
    store,
    log: () => {},
    maxPages: site.pages,
  });
  knowledge.stop();
  await knowledge.ready;
  const server = await listenBenchApp(provider.baseURL, { knowledge });
  // With an index and no crawl: the same questions for five seconds.
  const quietUntil = performance.now() + 5_000;
  const quietDelay = monitorEventLoopDelay({ resolution: 5 });
  quietDelay.enable();
  const quiet = await chatLatencies(server.url, () => performance.now() > quietUntil);
  quietDelay.disable();

  globalThis.gc?.();
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 20);
  // The measured crawl finds every page changed (a sync re-indexes only those), as the first crawl of a site would.
  await site.edition('Second edition.');
  // How long anything on the server's thread waited for it: the proxy that a busy machine blurs least.
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  let crawling = true;
  const crawl = knowledge.refresh().then(() => {
    crawling = false;
  });
  const busy = await chatLatencies(server.url, () => !crawling);
  await crawl;
  delay.disable();
  clearInterval(sampler);
  const crawlSeconds = (performance.now() - started) / 1000;
  await server.close();
  await site.close();
  await provider.close();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });

  const [quietP50, quietP99, busyP50, busyP99] = [
    quantile(quiet, 0.5),
    quantile(quiet, 0.99),
    quantile(busy, 0.5),
    quantile(busy, 0.99),
  ];
  const added = busyP99 - quietP99;
  const [delayP99, quietDelayP99] = [delay.percentile(99) / 1e6, quietDelay.percentile(99) / 1e6];
  const label = `${ORDINARY} ordinary + ${site.pages - ORDINARY} pathological pages (served by another process), crawled in ${crawlSeconds.toFixed(0)} s`;
  const loop = `event loop delay p99 ${ms(delayP99, 0)} (without: ${ms(quietDelayP99, 0)})`;
  return {
    rows: [
      [
        `chat p50 / p99 during a crawl of ${label} (without: ${ms(quietP50)} / ${ms(quietP99)}); ${loop}`,
        `${ms(busyP50)} / ${ms(busyP99)}`,
        `p99 +≤ ${ADDED_P99_MS} ms`,
        met(added <= ADDED_P99_MS),
      ],
      [
        'peak RSS of that crawl (before it)',
        `${(rssPeak / 2 ** 20).toFixed(0)} MB (${(rssBefore / 2 ** 20).toFixed(0)} MB)`,
        '≤ 512 MB',
        met(rssPeak <= 512 * 2 ** 20),
      ],
    ],
    data: {
      quietP50,
      quietP99,
      busyP50,
      busyP99,
      addedP99: added,
      delayP99,
      quietDelayP99,
      rssPeakMb: rssPeak / 2 ** 20,
      rssBeforeMb: rssBefore / 2 ** 20,
      crawlSeconds,
    },
  };
}
