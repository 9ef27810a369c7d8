import { type Allowed, cappedBody, type FetchLimits, fetchWithin, type Route, unzipped } from './crawl-fetch.ts';
import { LocationScanner, type SitemapEntry } from './sitemap-scan.ts';

// A sitemap's listing: the sitemap and its children read as they stream in, within the format's limits and the
// source's, each address checked once.

/** What a listing may read. */
export interface ListLimits extends FetchLimits {
  maxPages: number;
  /** Sitemaps read, the sitemap indexes' children included. */
  maxSitemaps: number;
}

/** The sitemap format's own limits (sitemaps.org): 50 MB and 50,000 addresses a file. */
const SITEMAP_MAX_BYTES = 50_000_000;
const SITEMAP_MAX_ADDRESSES = 50_000;
/** An address longer than this is no page's (sitemaps.org), and would make each robots.txt check cost more. */
const MAX_ADDRESS_LENGTH = 2048;

/** The pages a listing found (by address, with their entries' `<lastmod>`), and the addresses not taken, with why. */
export interface Listing {
  pages: Map<string, SitemapEntry>;
  skipped: { address: string; reason: string }[];
}

/**
 * Streams one sitemap's `<loc>` entries to `take` (with the address they are relative to, and whether the sitemap is
 * an index) until it says it has enough, the file ends or the format's limits are reached. A gzipped sitemap
 * (`.xml.gz`) is unzipped, within the same limits. Returns why the sitemap could not be read, or nothing; entries
 * read before a failure have been taken.
 */
export async function readSitemapFile(
  address: string,
  origin: string,
  allowed: Allowed,
  limits: FetchLimits & Route,
  take: (entry: SitemapEntry, base: string, index: boolean) => boolean,
): Promise<string | undefined> {
  const fetched = await fetchWithin(address, origin, allowed, limits);
  if (!fetched.ok) return fetched.reason;
  const { url } = fetched;
  if (!fetched.response.ok) {
    await fetched.response.body?.cancel();
    return `it answered ${fetched.response.status}`;
  }
  const scanner = new LocationScanner();
  const decoder = new TextDecoder();
  let count = 0;
  /** Whether the reading goes on after `entries`. */
  const taken = (entries: SitemapEntry[]) =>
    entries.every((entry) => ++count <= SITEMAP_MAX_ADDRESSES && take(entry, url, scanner.index === true));
  try {
    for await (const chunk of cappedBody(await unzipped(fetched.response), SITEMAP_MAX_BYTES)) {
      if (!taken(scanner.push(decoder.decode(chunk, { stream: true })))) return undefined;
    }
    // The last entry's `<lastmod>` comes after it, at the end of the file.
    taken(scanner.end(decoder.decode()));
  } catch (error) {
    return `it was cut off after ${count} addresses (${(error as Error).message})`;
  }
  return undefined;
}

/**
 * The page addresses the sitemap and its children list on `origin`, each once and at most `maxPages` (the rest of
 * the file that fills them is listed as skipped; its further children are not read). A child that fails is skipped
 * with its reason; the sitemap itself failing throws. A sitemap listed again (by itself or another) is read once.
 */
export async function listPages(
  sitemap: string,
  origin: string,
  allowed: Allowed,
  limits: ListLimits & Route,
  log: (line: string) => void,
): Promise<Listing> {
  const sitemaps = [sitemap];
  const pages = new Map<string, SitemapEntry>();
  const skipped: Listing['skipped'] = [];
  let outside = 0;
  let tooLong = 0;
  const take = (entry: SitemapEntry, base: string, index: boolean) => {
    const url = URL.parse(entry.location, base);
    if (!url || url.origin !== origin) {
      outside++;
      if (url && !index) skipped.push({ address: url.href, reason: 'another origin' });
    } else if (url.href.length > MAX_ADDRESS_LENGTH) tooLong++;
    else {
      url.hash = '';
      if (index) {
        if (!sitemaps.includes(url.href)) sitemaps.push(url.href);
        return sitemaps.length < limits.maxSitemaps;
      }
      if (pages.has(url.href)) return true;
      // The scanner's own entry: a `<lastmod>` after its `<loc>` is set on it when it arrives.
      if (pages.size < limits.maxPages) pages.set(url.href, entry);
      else skipped.push({ address: url.href, reason: `past max_pages (${limits.maxPages})` });
    }
    return true;
  };
  for (let read = 0; read < sitemaps.length && pages.size < limits.maxPages; read++) {
    const failure = await readSitemapFile(sitemaps[read], origin, allowed, limits, take);
    if (failure === undefined) continue;
    if (read === 0) throw new Error(`the sitemap ${sitemap} cannot be read: ${failure}`);
    log(`[knowledge] skipped the sitemap ${sitemaps[read]}: ${failure}`);
  }
  if (outside > 0) log(`[knowledge] ${sitemap} lists ${outside} addresses outside ${origin}; they are not fetched`);
  if (tooLong > 0) log(`[knowledge] ${sitemap} lists ${tooLong} addresses over ${MAX_ADDRESS_LENGTH} characters`);
  return { pages, skipped };
}
