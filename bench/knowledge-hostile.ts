// The knowledge library under a hostile site, for `npm run bench:knowledge`: chat latency (through the real app, to a
// fake provider on loopback) while a site of 1,000 ordinary pages and 20 pathological ones is crawled, against the
// same requests with no crawl, and the process's peak RSS during the crawl (the extraction worker's included).
import { CHAT_COMPLETIONS_PATH } from '../contract/llm.ts';
import { createApp } from '../server/app.ts';
import { startKnowledge } from '../server/knowledge/knowledge.ts';
import { listen } from '../server/listen.ts';
import { startFakeProvider } from '../testing/fake-provider.ts';
import { sitemapXml, sitePage, startKnowledgeSite } from '../testing/knowledge-site.ts';
import { met, ms, quantile } from './table.ts';

const ORDINARY = 1_000;
/** The issue's target: what the crawl may add to chat's p99. */
const ADDED_P99_MS = 20;

/** The 20 pathological pages: each kind that once stalled or exhausted the server, four of each. */
function pathological(): Record<string, { body: string | Uint8Array }> {
  let word = 0;
  const kinds: Record<string, () => string | Uint8Array> = {
    deep: () => `<html><body>${'<div>'.repeat(2_000)}deep${'</div>'.repeat(2_000)}</body></html>`,
    flat: () => `<html><body>${'<i>x</i>'.repeat(240_000)}</body></html>`,
    unique: () =>
      `<html><body><p>${Array.from({ length: 200_000 }, () => `w${(word++).toString(36)}`).join(' ')}</p></body></html>`,
    stuffed: () =>
      sitePage({ title: 'price delivery hours '.repeat(90_000), body: '<p>999 euros, wire transfer only.</p>' }),
    binary: () => Uint8Array.from({ length: 500_000 }, (_, n) => (n * 7919) % 256),
  };
  return Object.fromEntries(
    Object.entries(kinds).flatMap(([kind, make]) => [1, 2, 3, 4].map((n) => [`/bad/${kind}-${n}`, { body: make() }])),
  );
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
  const site = await startKnowledgeSite(pathological());
  const ordinary = Array.from({ length: ORDINARY }, (_, n) => `/page-${n}`);
  for (const [n, path] of ordinary.entries())
    site.set(path, {
      body: sitePage({
        title: `Page ${n}`,
        body: `<h1>Topic ${n}</h1><p>${`Deliveries for topic ${n} take two days, and the shop opens at nine. `.repeat(20)}</p>`,
      }),
    });
  const bad = Object.keys(pathological());
  site.set('/sitemap.xml', {
    type: 'application/xml',
    body: sitemapXml([...bad, ...ordinary].map((path) => site.origin + path)),
  });

  const knowledge = startKnowledge([{ sitemap: `${site.origin}/sitemap.xml` }], {
    log: () => {},
    maxPages: ORDINARY + bad.length,
  });
  knowledge.stop();
  await knowledge.ready;
  const app = createApp({
    upstream: { kind: 'provider', baseURL: provider.baseURL, apiKey: 'bench-fake-token', model: 'bench/model' },
    timeoutMs: 10_000,
    rateLimitPerMinute: 0,
    trustProxyHops: 0,
    security: { frameAncestors: ["'self'"], connectSrc: [] },
    log: () => {},
    knowledge,
  });
  const server = await listen(app, { port: 0, host: '127.0.0.1' });
  // With an index and no crawl: the same questions for five seconds.
  const quietUntil = performance.now() + 5_000;
  const quiet = await chatLatencies(server.url, () => performance.now() > quietUntil);

  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  let crawling = true;
  const crawl = knowledge.refresh().then(() => {
    crawling = false;
  });
  const busy = await chatLatencies(server.url, () => !crawling);
  await crawl;
  clearInterval(sampler);
  const crawlSeconds = (performance.now() - started) / 1000;
  await server.close();
  await site.close();
  await provider.close();

  const [quietP50, quietP99, busyP50, busyP99] = [
    quantile(quiet, 0.5),
    quantile(quiet, 0.99),
    quantile(busy, 0.5),
    quantile(busy, 0.99),
  ];
  const added = busyP99 - quietP99;
  const label = `${ORDINARY} ordinary + ${bad.length} pathological pages, crawled in ${crawlSeconds.toFixed(0)} s`;
  return {
    rows: [
      [
        `chat p50 / p99 during a crawl of ${label} (without: ${ms(quietP50)} / ${ms(quietP99)})`,
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
    data: { quietP50, quietP99, busyP50, busyP99, addedP99: added, rssPeakMb: rssPeak / 2 ** 20, crawlSeconds },
  };
}
