// The sync benchmark's site (see knowledge-sync.ts): a sitemap of N synthetic pages with ETags on 127.0.0.1. Imported,
// it serves from the bench's own process; run as a script (`tsx bench/knowledge-sync-site.ts N`), from a process of its
// own, printing its origin: then serving 10,000 pages takes nothing of the event loop the bench measures.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CRAWL_DEFAULTS, DEFAULT_INDEX_TEXT_MILLIONS, indexBudgetFor } from '../server/knowledge/knowledge.ts';

const SYLLABLES = 'ba ko mi ne ru sa te lo vi da fe gu hi ja pe'.split(' ');
/** The site's vocabulary: 3,375 invented words of three syllables, so that retrieval meets a large site's rarities. */
const WORDS = SYLLABLES.flatMap((a) => SYLLABLES.flatMap((b) => SYLLABLES.map((c) => a + b + c)));
/** The words every page uses (a site's own common words); the rest are a page's topic, shared with its neighbours. */
const COMMON = 60;

/** The `i`-th topic word of page `n`: pages near each other share some, as the pages of one section do. */
export const topicWord = (n: number, i: number) => WORDS[COMMON + ((n * 11 + i * 7) % (WORDS.length - COMMON))];

/** A page's text is about 2,100 characters; the budget counts 2,400, so that every page fits. */
const PAGE_TEXT_CHARS = 2_400;

/**
 * The index budget that holds the whole site of `pages` pages, as `KNOWLEDGE_INDEX_TEXT` would set it: the default
 * (60 million characters) up to 25,000 pages, 120 at 50,000.
 */
export function siteBudget(pages: number) {
  const millions = Math.max(DEFAULT_INDEX_TEXT_MILLIONS, Math.ceil((pages * PAGE_TEXT_CHARS) / 1e6));
  return { millions, budget: indexBudgetFor(millions) };
}

/** The sync's settings for a site of `pages` pages: the crawl's defaults, 8 requests at once, the whole site's budget. */
export function syncOptions(pages: number) {
  return {
    ...CRAWL_DEFAULTS,
    ...siteBudget(pages).budget,
    maxPages: pages,
    concurrency: 8,
    language: 'en',
    log: () => {},
  };
}

/** A page of the synthetic site: its own title and 300 words, a third of them common, the rest of its topic. */
function pageHtml(n: number, edition: number): string {
  const words = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? WORDS[(n + i) % COMMON] : topicWord(n, i % 40)));
  return `<!doctype html><html lang="en"><head><title>Guide ${n}: ${topicWord(n, 0)} care</title></head><body>
<nav><a href="/">Home</a></nav><main><article><h1>Guide ${n}</h1><p>${words.slice(0, 150).join(' ')} item${n}, edition ${edition}.</p>
<h2>More</h2><p>${words.slice(150).join(' ')}.</p></article></main></body></html>`;
}

/**
 * The site: robots.txt, one sitemap, `pages` pages with ETags answering 304; it counts page requests and bytes.
 * `POST /edition` gives every page a new text and ETag (a sync then finds them all changed).
 */
export async function startSite(pages: number) {
  const counts = { pageRequests: 0, bytes: 0 };
  let edition = 1;
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/edition' && request.method === 'POST') {
      edition++;
      return response.writeHead(204).end();
    }
    if (path === '/robots.txt') return response.writeHead(200, { 'Content-Type': 'text/plain' }).end('');
    if (path === '/sitemap.xml') {
      const urls = Array.from({ length: pages }, (_, n) => `<url><loc>${origin}/p/${n}</loc></url>`).join('');
      return response.writeHead(200, { 'Content-Type': 'application/xml' }).end(`<urlset>${urls}</urlset>`);
    }
    const n = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? Number.NaN);
    if (!(n >= 0 && n < pages)) return response.writeHead(404).end();
    counts.pageRequests++;
    const etag = `"${n}-v${edition}"`;
    if (request.headers['if-none-match'] === etag) return response.writeHead(304, { ETag: etag }).end();
    const body = pageHtml(n, edition);
    counts.bytes += Buffer.byteLength(body);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ETag: etag }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, counts, close: () => server.close() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The site stands for one on another machine: at the lowest priority, it takes only the CPU the server leaves.
  setPriority(19);
  const site = await startSite(Number(process.argv[2]));
  console.log(site.origin);
}
