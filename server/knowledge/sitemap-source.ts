import {
  type Allowed,
  cappedBody,
  cappedBytes,
  type FetchLimits,
  fetchWithin,
  pageText,
  withoutCredentials,
} from './crawl-fetch.ts';
import { type ExtractLimits, type HtmlExtractor, htmlExtractor } from './html-extractor.ts';
import type { Page } from './page.ts';
import { readRobots } from './robots-rules.ts';
import { LocationScanner } from './sitemap-scan.ts';

/** What a sitemap source may fetch and spend; every one has a default in `KNOWLEDGE_DEFAULTS`. */
export interface CrawlLimits extends FetchLimits, ExtractLimits {
  maxPages: number;
  maxPageBytes: number;
  /** Requests in flight at once that are answering. */
  concurrency: number;
  /**
   * A request that has received nothing after this long gives its place to the next page: it goes on in the
   * background until its own time limit, so pages that never answer cannot keep the good ones out.
   */
  slowAfterMs: number;
  /** Sitemaps read, the sitemap indexes' children included. */
  maxSitemaps: number;
}

/** The sitemap format's own limits (sitemaps.org): 50 MB and 50,000 addresses a file. */
const SITEMAP_MAX_BYTES = 50_000_000;
const SITEMAP_MAX_ADDRESSES = 50_000;
/** An address longer than this is no page's (sitemaps.org), and would make each robots.txt check cost more. */
const MAX_ADDRESS_LENGTH = 2048;
/** Requests that have heard nothing that may wait in the background, for each of `concurrency`. */
const WAITING_PER_SLOT = 8;

/** What every page of one sitemap shares as it is read. */
interface Crawl {
  origin: string;
  allowed: Allowed;
  language: string;
  limits: CrawlLimits;
  extractor: HtmlExtractor;
  /** Every page address the sitemaps list (and the crawl will ask for). */
  listed: ReadonlySet<string>;
}

/**
 * Streams one sitemap's `<loc>` entries to `take` (with the address they are relative to, and whether the sitemap is
 * an index) until it says it has enough, the file ends or the format's limits are reached. Returns why the sitemap
 * could not be read, or nothing; entries read before a failure have been taken.
 */
async function readSitemapFile(
  address: string,
  origin: string,
  allowed: Allowed,
  limits: FetchLimits,
  take: (location: string, base: string, index: boolean) => boolean,
): Promise<string | undefined> {
  const fetched = await fetchWithin(address, origin, allowed, limits);
  if (!fetched.ok) return fetched.reason;
  const { response, url } = fetched;
  if (!response.ok) {
    await response.body?.cancel();
    return `it answered ${response.status}`;
  }
  const scanner = new LocationScanner();
  const decoder = new TextDecoder();
  let count = 0;
  try {
    for await (const chunk of cappedBody(response, SITEMAP_MAX_BYTES)) {
      for (const location of scanner.push(decoder.decode(chunk, { stream: true }))) {
        if (++count > SITEMAP_MAX_ADDRESSES || !take(location, url, scanner.index === true)) return undefined;
      }
    }
  } catch (error) {
    return `it was cut off after ${count} addresses (${(error as Error).message})`;
  }
  return undefined;
}

/**
 * The page addresses the sitemap and its children list on `origin`, each once and at most `maxPages`. A child that
 * fails is skipped with its reason; the sitemap itself failing throws. A sitemap listed again (by itself or another)
 * is read once.
 */
async function listPages(
  sitemap: string,
  origin: string,
  allowed: Allowed,
  limits: CrawlLimits,
  log: (line: string) => void,
): Promise<Set<string>> {
  const sitemaps = [sitemap];
  const pages = new Set<string>();
  let outside = 0;
  let tooLong = 0;
  const take = (location: string, base: string, index: boolean) => {
    const url = URL.parse(location, base);
    if (!url || url.origin !== origin) outside++;
    else if (url.href.length > MAX_ADDRESS_LENGTH) tooLong++;
    else {
      url.hash = '';
      if (!index) pages.add(url.href);
      else if (!sitemaps.includes(url.href)) sitemaps.push(url.href);
    }
    return index ? sitemaps.length < limits.maxSitemaps : pages.size < limits.maxPages;
  };
  for (let read = 0; read < sitemaps.length && pages.size < limits.maxPages; read++) {
    const failure = await readSitemapFile(sitemaps[read], origin, allowed, limits, take);
    if (failure === undefined) continue;
    if (read === 0) throw new Error(`the sitemap ${sitemap} cannot be read: ${failure}`);
    log(`knowledge: skipped the sitemap ${sitemaps[read]}: ${failure}`);
  }
  if (outside > 0) log(`knowledge: ${sitemap} lists ${outside} addresses outside ${origin}; they are not fetched`);
  if (tooLong > 0) log(`knowledge: ${sitemap} lists ${tooLong} addresses over ${MAX_ADDRESS_LENGTH} characters`);
  return pages;
}

/**
 * Calls `read` for every address, `concurrency` at a time; a read that has heard nothing after `slowAfterMs` waits in
 * the background (at most {@link WAITING_PER_SLOT} per slot) and its slot takes the next address. `read` never
 * rejects, and calls `answered` when its answer begins.
 */
async function crawl(
  addresses: Iterable<string>,
  limits: CrawlLimits,
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
      const slow = new Promise<'slow'>((resolve) => {
        timer = setTimeout(resolve, limits.slowAfterMs, 'slow');
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
 * page on the sitemap's own origin that robots.txt allows for `userAgent`, at most `maxPages`. A page that fails, is
 * not HTML text, is too large or too costly to read is skipped with a log line. Pages are pushed to `found` as they
 * come in, so that a first index need not wait for the slowest. Throws when robots.txt or the sitemap cannot be read,
 * so that the caller keeps the pages it had.
 */
export async function readSitemap(
  sitemap: string,
  language: string,
  limits: CrawlLimits,
  log: (line: string) => void,
  found: Page[] = [],
): Promise<Page[]> {
  const say = (line: string) => log(withoutCredentials(line));
  const { origin } = new URL(sitemap);
  const allowed = await readRobots(origin, limits, say);
  const listed = await listPages(sitemap, origin, allowed, limits, say);
  const site: Crawl = { origin, allowed, language, limits, extractor: htmlExtractor(limits), listed };
  const taken = new Set<string>();
  try {
    await crawl(listed, limits, async (address, answered) => {
      const page = await readPage(address, site, answered).catch((error: Error) => error.message);
      if (typeof page === 'string') say(`knowledge: skipped ${address}: ${page}`);
      else if (taken.has(page.url)) say(`knowledge: skipped ${address}: it leads to ${page.url}, read already`);
      else {
        taken.add(page.url);
        found.push(page);
      }
    });
  } finally {
    await site.extractor.close();
  }
  return found;
}

/**
 * One page of the sitemap, fetched and reduced to its main text in the extractor's worker; a string says why it was
 * skipped. Its passages are attributed to the address it was fetched from: a canonical link only tells that the page
 * is another one of the crawl, then read on its own.
 */
async function readPage(address: string, site: Crawl, answered: () => void): Promise<Page | string> {
  const fetched = await fetchWithin(address, site.origin, site.allowed, site.limits);
  answered();
  if (!fetched.ok) return fetched.reason;
  const { response, url } = fetched;
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !/html/i.test(type)) {
    await response.body?.cancel();
    return response.ok ? `it is not HTML (${type})` : `it answered ${response.status}`;
  }
  const bytes = await cappedBytes(response, site.limits.maxPageBytes);
  if (bytes === undefined) return `it is larger than ${site.limits.maxPageBytes} bytes`;
  const html = pageText(bytes, type);
  if (html === undefined) return 'it is not text in its charset (or holds control characters)';
  const draft = await site.extractor.extract(html, url);
  if (typeof draft === 'string') return draft;
  const canonical = draft.url === undefined ? null : URL.parse(draft.url, url);
  if (canonical) canonical.hash = '';
  if (canonical?.origin === site.origin && canonical.href !== url && site.listed.has(canonical.href))
    return `its canonical address ${canonical.href} is read on its own`;
  return {
    url,
    title: draft.title ?? new URL(url).pathname,
    language: draft.language ?? site.language,
    sections: draft.sections,
    ...(draft.keywords ? { keywords: draft.keywords } : {}),
  };
}
