import { setTimeout as sleep } from 'node:timers/promises';
import { type Allowed, cappedBytes, fetchWithin, type Route, withoutCredentials } from './crawl-fetch.ts';
import { type ExtractLimits, type HtmlExtractor, htmlExtractor } from './html-extractor.ts';
import type { Page } from './page.ts';
import { readRobots } from './robots-rules.ts';
import { type Resolve, siteFetch } from './site-address.ts';
import { type ListLimits, listPages } from './sitemap-list.ts';

/** What a sitemap source may fetch and spend; every one has a default in `CRAWL_DEFAULTS`. */
export interface CrawlLimits extends ListLimits, ExtractLimits {
  maxPageBytes: number;
  /** Requests in flight at once that are answering. */
  concurrency: number;
  /**
   * A request that has received nothing after this long gives its place to the next page: it goes on in the
   * background until its own time limit, so pages that never answer cannot keep the good ones out.
   */
  slowAfterMs: number;
}

/** What the store knows of a page from its last fetch: what a sync sends back to ask whether it changed. */
export interface KnownPage {
  etag?: string;
  lastModified?: string;
  /** When it was last asked for (ms since the epoch). */
  fetchedAt: number;
}

/** Every page is asked again at least this often, whatever its sitemap's `<lastmod>` says. */
export const RECHECK_MS = 7 * 24 * 60 * 60 * 1000;

/** Requests that have heard nothing that may wait in the background, for each of `concurrency`. */
const WAITING_PER_SLOT = 8;

/** What became of one address of the sitemap. */
export type PageOutcome =
  | { address: string; kind: 'page'; page: Page; etag?: string; lastModified?: string; bytes: number }
  /** A `304`, with the validators it sent: nothing was read. */
  | { address: string; kind: 'not-modified'; etag?: string; lastModified?: string }
  /** A `<lastmod>` older than the last fetch: nothing was asked. */
  | { address: string; kind: 'lastmod' }
  /** Not taken, and gone from the store if it was there: a `404`/`410`, not HTML, too large, out of bounds. */
  | { address: string; kind: 'skipped'; reason: string }
  /** A failure that may pass (`5xx`, a time-out, the network): the store keeps the page's last copy. */
  | { address: string; kind: 'failed'; reason: string };

/** What a sync brings to a reading: the pages it knows, its clock, who hears how far it got, where pages go. */
export interface SyncContext {
  known?: ReadonlyMap<string, KnownPage>;
  now?: number;
  progress?: (done: number, total: number) => void;
  /** Receives the pages as they come in, for a first index that cannot wait for them all. */
  found?: Page[];
  /** Resolves the site's name (the system's resolver unless a test gives its own). */
  resolve?: Resolve;
}

/** A sitemap source read: every listed address's outcome, and the addresses the listing itself left out. */
export interface SitemapRead {
  outcomes: PageOutcome[];
  /** Listed but never asked: another origin, past `maxPages`. */
  skipped: { address: string; reason: string }[];
}

/** What every page of one sitemap shares as it is read. */
interface Crawl {
  origin: string;
  allowed: Allowed;
  language: string;
  limits: CrawlLimits & Route;
  extractor: HtmlExtractor;
  /** Every page address the sitemaps list (and the crawl will ask for). */
  listed: ReadonlySet<string>;
}

/**
 * Calls `read` for every address, `concurrency` at a time; a read that has heard nothing after `slowAfterMs` waits in
 * the background (at most {@link WAITING_PER_SLOT} per slot) and its slot takes the next address. `read` never
 * rejects, and calls `answered` when its answer begins.
 */
async function crawl(
  addresses: Iterable<string>,
  limits: Pick<CrawlLimits, 'concurrency' | 'slowAfterMs'>,
  read: (address: string, answered: () => void) => Promise<void>,
): Promise<void> {
  const queue = [...addresses];
  const waiting = new Set<Promise<void>>();
  const slot = async () => {
    for (let address = queue.shift(); address !== undefined; address = queue.shift()) {
      let answered = () => {};
      const heard = new Promise<void>((resolve) => {
        answered = resolve;
      });
      const done = read(address, answered);
      let timer: NodeJS.Timeout | undefined;
      // With no `slowAfterMs` (a Crawl-delay: one request at a time), a read keeps its slot to the end.
      const slow = new Promise<'slow'>((resolve) => {
        if (Number.isFinite(limits.slowAfterMs)) timer = setTimeout(resolve, limits.slowAfterMs, 'slow');
      });
      const first = await Promise.race([heard, done, slow]);
      clearTimeout(timer);
      if (first !== 'slow') {
        await done;
        continue;
      }
      waiting.add(done);
      void done.then(() => waiting.delete(done));
      while (waiting.size >= limits.concurrency * WAITING_PER_SLOT) await Promise.race(waiting);
    }
  };
  await Promise.all(Array.from({ length: limits.concurrency }, slot));
  await Promise.all(waiting);
}

/**
 * The pages a sitemap lists, fetched: robots.txt first, then the sitemap (and a sitemap index's children), then each
 * page on the sitemap's own origin that robots.txt allows for `userAgent`, at most `maxPages`. A page in `known` is
 * asked only if it may have changed: not when its `<lastmod>` is older than its last fetch (unless that is
 * `RECHECK_MS` ago), and then with `If-None-Match` / `If-Modified-Since`. A `Crawl-delay` makes it one request at a
 * time, that far apart. Every address gets its outcome; a page that fails, is not HTML text, is too large or too
 * costly to read is logged. Throws when robots.txt or the sitemap cannot be read, so the caller keeps its pages.
 */
export async function readSitemap(
  sitemap: string,
  language: string,
  limits: CrawlLimits,
  log: (line: string) => void,
  { known = new Map(), now = Date.now(), progress, found = [], resolve }: SyncContext = {},
): Promise<SitemapRead> {
  const say = (line: string) => log(withoutCredentials(line));
  const { origin } = new URL(sitemap);
  const connections = siteFetch(origin, resolve);
  const route = { ...limits, fetch: connections.fetch };
  let extractor: HtmlExtractor | undefined;
  const outcomes: PageOutcome[] = [];
  const taken = new Set<string>();
  let asked = 0;
  try {
    const { allowed, crawlDelayMs } = await readRobots(origin, route, say);
    const { pages, skipped } = await listPages(sitemap, origin, allowed, route, say);
    const listed = new Set(pages.keys());
    extractor = htmlExtractor(limits);
    const site: Crawl = { origin, allowed, language, limits: route, extractor, listed };
    const delayed = crawlDelayMs > 0 ? { concurrency: 1, slowAfterMs: Number.POSITIVE_INFINITY } : limits;
    await crawl(listed, delayed, async (address, answered) => {
      const before = known.get(address);
      const lastmod = pages.get(address)?.lastmod;
      let outcome: PageOutcome;
      if (before && lastmod !== undefined && lastmod < before.fetchedAt && now - before.fetchedAt < RECHECK_MS) {
        answered();
        outcome = { address, kind: 'lastmod' };
      } else {
        if (crawlDelayMs > 0 && allowed(address) && asked++ > 0) await sleep(crawlDelayMs);
        outcome = await readPage(address, site, answered, before).catch(
          (error: Error): PageOutcome => ({ address, kind: 'failed', reason: error.message }),
        );
      }
      if (outcome.kind === 'page' && taken.has(outcome.page.url))
        outcome = { address, kind: 'skipped', reason: `it leads to ${outcome.page.url}, read already` };
      if (outcome.kind === 'page') {
        taken.add(outcome.page.url);
        found.push(outcome.page);
      }
      if (outcome.kind === 'skipped' || outcome.kind === 'failed')
        say(`[knowledge] skipped ${address}: ${outcome.reason}`);
      outcomes.push(outcome);
      progress?.(outcomes.length, listed.size);
    });
    return { outcomes, skipped };
  } finally {
    await extractor?.close();
    await connections.close();
  }
}

const validators = (response: Response) => ({
  ...(response.headers.get('etag') ? { etag: response.headers.get('etag') as string } : {}),
  ...(response.headers.get('last-modified') ? { lastModified: response.headers.get('last-modified') as string } : {}),
});

/**
 * One page of the sitemap, asked again with its validators when it is `known`, fetched and reduced to its main text
 * in the extractor's worker. Its passages are attributed to the address it was fetched from: a canonical link only
 * tells that the page is another one of the crawl, then read on its own.
 */
async function readPage(address: string, site: Crawl, answered: () => void, known?: KnownPage): Promise<PageOutcome> {
  const conditional = {
    ...(known?.etag ? { 'if-none-match': known.etag } : {}),
    ...(known?.lastModified ? { 'if-modified-since': known.lastModified } : {}),
  };
  const fetched = await fetchWithin(address, site.origin, site.allowed, site.limits, conditional);
  answered();
  if (!fetched.ok) return { address, kind: fetched.transient ? 'failed' : 'skipped', reason: fetched.reason };
  const { response, url } = fetched;
  const skip = (reason: string): PageOutcome => ({ address, kind: 'skipped', reason });
  if (response.status === 304 && known) {
    await response.body?.cancel();
    return { address, kind: 'not-modified', ...validators(response) };
  }
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok) {
    await response.body?.cancel();
    const reason = `it answered ${response.status}`;
    return response.status === 404 || response.status === 410 ? skip(reason) : { address, kind: 'failed', reason };
  }
  if (!/html/i.test(type)) {
    await response.body?.cancel();
    return skip(`it is not HTML (${type})`);
  }
  const bytes = await cappedBytes(response, site.limits.maxPageBytes);
  if (bytes === undefined) return skip(`it is larger than ${site.limits.maxPageBytes} bytes`);
  const draft = await site.extractor.extract(bytes, type, url, site.language);
  if (typeof draft === 'string') return skip(draft);
  const canonical = draft.url === undefined ? null : URL.parse(draft.url, url);
  if (canonical) canonical.hash = '';
  if (canonical?.origin === site.origin && canonical.href !== url && site.listed.has(canonical.href))
    return skip(`its canonical address ${canonical.href} is read on its own`);
  const page = {
    url,
    title: draft.title ?? new URL(url).pathname,
    language: draft.language ?? site.language,
    sections: draft.sections,
    ...(draft.keywords ? { keywords: draft.keywords } : {}),
    ...(draft.description ? { description: draft.description } : {}),
  };
  return { address, kind: 'page', page, ...validators(response), bytes: bytes.byteLength };
}
