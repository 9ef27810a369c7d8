import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import robotsParser from 'robots-parser';
import { type Allowed, type CrawlLimits, cappedText, fetchFailure, fetchWithin } from './fetch-within.ts';
import { htmlPage } from './html-page.ts';
import type { Page } from './page.ts';
import { sitemapLocations } from './sitemap-xml.ts';

export type { CrawlLimits } from './fetch-within.ts';

/** Whether a status means "there are no rules": robots.txt says a missing file (4xx) allows everything. */
const noRules = (status: number) => status >= 400 && status < 500;

/** What the store knows of a page from its last fetch: what a sync sends back to ask whether it changed. */
export interface KnownPage {
  etag?: string;
  lastModified?: string;
  /** When it was last asked for (ms since the epoch). */
  fetchedAt: number;
}

/** The longest `Crawl-delay` honoured, in seconds: a larger one would make a sync of 1,000 pages take days. */
export const MAX_CRAWL_DELAY_S = 10;

/** Every page is asked again at least this often, whatever its sitemap's `<lastmod>` says. */
export const RECHECK_MS = 7 * 24 * 60 * 60 * 1000;

/** What became of one address of the sitemap. */
export type PageOutcome =
  | { address: string; kind: 'page'; page: Page; etag?: string; lastModified?: string; bytes: number }
  /** A `304` (with the validators it sent), or a `<lastmod>` older than the last fetch: nothing was read. */
  | { address: string; kind: 'not-modified'; etag?: string; lastModified?: string }
  | { address: string; kind: 'lastmod' }
  /** Not taken, and gone from the store if it was there: a `404`/`410`, not HTML, too large, out of bounds. */
  | { address: string; kind: 'skipped'; reason: string }
  /** A failure that may pass (`5xx`, a time-out, the network): the store keeps the page's last copy. */
  | { address: string; kind: 'failed'; reason: string };

/** What a sync brings to a reading: the pages it knows, its clock, and who hears how far it got. */
export interface SyncContext {
  known?: ReadonlyMap<string, KnownPage>;
  now?: number;
  progress?: (done: number, total: number) => void;
}

/** A sitemap source read: every listed address's outcome, and the addresses the listing itself left out. */
export interface SitemapRead {
  outcomes: PageOutcome[];
  /** Listed but never asked: robots.txt disallows it, another origin, past `maxPages`. */
  skipped: { address: string; reason: string }[];
}

/**
 * The pages a sitemap lists, fetched: the sitemap (and sitemap indexes) first, then each page on the sitemap's own
 * origin that its robots.txt allows for `userAgent`, at most `maxPages`. A page in `known` is asked only if it may
 * have changed: not when its `<lastmod>` is older than its last fetch (unless that is `RECHECK_MS` ago), and then with
 * `If-None-Match` / `If-Modified-Since`. Throws when robots.txt or the sitemap cannot be read, so that the caller keeps
 * the pages it had.
 */
export async function readSitemap(
  sitemap: string,
  language: string,
  limits: CrawlLimits,
  log: (line: string) => void,
  { known = new Map(), now = Date.now(), progress }: SyncContext = {},
): Promise<SitemapRead> {
  const { origin } = new URL(sitemap);
  const robotsUrl = `${origin}/robots.txt`;
  const robotsFetch = await fetchWithin(robotsUrl, origin, () => true, limits);
  if (!robotsFetch.ok) throw new Error(`${robotsUrl} cannot be read: ${robotsFetch.reason}`);
  const { response: robotsResponse } = robotsFetch;
  if (!robotsResponse.ok && !noRules(robotsResponse.status)) {
    await robotsResponse.body?.cancel();
    throw new Error(`${robotsUrl} answered ${robotsResponse.status}`);
  }
  const rules = robotsResponse.ok ? ((await cappedText(robotsResponse, limits.maxPageBytes)) ?? '') : '';
  if (!robotsResponse.ok) await robotsResponse.body?.cancel();
  const robots = robotsParser(robotsUrl, rules);
  const allowed: Allowed = (address) => robots.isAllowed(address, limits.userAgent) === true;

  const sitemaps = [sitemap];
  const pageUrls = new Map<string, number | undefined>();
  const skipped: SitemapRead['skipped'] = [];
  let otherOrigins = 0;
  for (let read = 0; read < sitemaps.length && read < limits.maxSitemaps; read++) {
    const fetched = await fetchWithin(sitemaps[read], origin, allowed, limits);
    const xml = fetched.ok && fetched.response.ok ? await cappedText(fetched.response, limits.maxPageBytes) : undefined;
    if (xml === undefined) {
      if (fetched.ok) await fetched.response.body?.cancel().catch(() => {});
      const reason = fetched.ok ? `it answered ${fetched.response.status} or is too large` : fetched.reason;
      if (read === 0) throw new Error(`the sitemap ${sitemap} cannot be read: ${reason}`);
      log(`[knowledge] skipped the sitemap ${sitemaps[read]}: ${reason}`);
      continue;
    }
    const { index, entries } = sitemapLocations(xml);
    for (const { location, lastmod } of entries) {
      const url = URL.parse(location, fetched.ok ? fetched.url : sitemap);
      if (!url || url.origin !== origin) {
        otherOrigins++;
        if (url && !index) skipped.push({ address: url.href, reason: 'another origin' });
        continue;
      }
      url.hash = '';
      if (index) sitemaps.push(url.href);
      else if (pageUrls.has(url.href)) continue;
      else if (!allowed(url.href)) skipped.push({ address: url.href, reason: 'robots.txt disallows it' });
      else if (pageUrls.size < limits.maxPages) pageUrls.set(url.href, lastmod);
      else skipped.push({ address: url.href, reason: `past max_pages (${limits.maxPages})` });
    }
  }
  if (otherOrigins > 0)
    log(`[knowledge] ${sitemap} lists ${otherOrigins} addresses outside ${origin}; they are not fetched`);
  const disallowed = skipped.filter((skip) => skip.reason === 'robots.txt disallows it').length;
  if (disallowed > 0) log(`[knowledge] ${sitemap}: robots.txt disallows ${disallowed} listed addresses`);

  // A `Crawl-delay` for this agent (or `*`) is honoured, up to MAX_CRAWL_DELAY_S: one request at a time, that far apart.
  const delay = Math.min(Number(robots.getCrawlDelay(limits.userAgent) ?? 0) || 0, MAX_CRAWL_DELAY_S) * 1000;
  const queue = [...pageUrls];
  const outcomes: PageOutcome[] = [];
  let asked = 0;
  const fetchNext = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [address, lastmod] = next;
      const before = known.get(address);
      if (before && lastmod !== undefined && lastmod < before.fetchedAt && now - before.fetchedAt < RECHECK_MS) {
        outcomes.push({ address, kind: 'lastmod' });
        continue;
      }
      if (delay > 0 && asked++ > 0) await sleep(delay);
      const outcome = await readPage(address, origin, allowed, language, limits, before).catch(
        (error: Error): PageOutcome => ({ address, kind: 'failed', reason: fetchFailure(error) }),
      );
      if (outcome.kind === 'skipped' || outcome.kind === 'failed')
        log(`[knowledge] skipped ${address}: ${outcome.reason}`);
      outcomes.push(outcome);
      progress?.(outcomes.length, pageUrls.size);
    }
  };
  await Promise.all(Array.from({ length: delay > 0 ? 1 : limits.concurrency }, fetchNext));
  return { outcomes, skipped };
}

/** One page of the sitemap, asked again with its validators when it is `known`, and reduced to its main text. */
async function readPage(
  address: string,
  origin: string,
  allowed: Allowed,
  language: string,
  limits: CrawlLimits,
  known?: KnownPage,
): Promise<PageOutcome> {
  const conditional = {
    ...(known?.etag ? { 'if-none-match': known.etag } : {}),
    ...(known?.lastModified ? { 'if-modified-since': known.lastModified } : {}),
  };
  const fetched = await fetchWithin(address, origin, allowed, limits, conditional);
  if (!fetched.ok) return { address, kind: 'skipped', reason: fetched.reason };
  const { response, url } = fetched;
  const validators = {
    ...(response.headers.get('etag') ? { etag: response.headers.get('etag') as string } : {}),
    ...(response.headers.get('last-modified') ? { lastModified: response.headers.get('last-modified') as string } : {}),
  };
  if (response.status === 304 && known) {
    await response.body?.cancel();
    return { address, kind: 'not-modified', ...validators };
  }
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok) {
    await response.body?.cancel();
    const reason = `it answered ${response.status}`;
    return response.status === 404 || response.status === 410
      ? { address, kind: 'skipped', reason }
      : { address, kind: 'failed', reason };
  }
  if (!/html/i.test(type)) {
    await response.body?.cancel();
    return { address, kind: 'skipped', reason: `it is not HTML (${type})` };
  }
  const html = await cappedText(response, limits.maxPageBytes);
  if (html === undefined) return { address, kind: 'skipped', reason: `it is larger than ${limits.maxPageBytes} bytes` };
  // Readability takes some milliseconds of one core per page: let waiting requests through first.
  await nextTurn();
  const draft = htmlPage(html, url);
  const canonical = draft.url === undefined ? undefined : URL.parse(draft.url, url);
  const page = {
    url: canonical?.origin === origin ? canonical.href : url,
    title: draft.title ?? new URL(url).pathname,
    language: draft.language ?? language,
    sections: draft.sections,
  };
  return { address, kind: 'page', page, ...validators, bytes: Buffer.byteLength(html) };
}
