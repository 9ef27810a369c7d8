import { setImmediate as nextTurn } from 'node:timers/promises';
import robotsParser from 'robots-parser';
import { htmlPage } from './html-page.ts';
import type { Page } from './page.ts';

/** What a sitemap source may fetch; every one has a default in `KNOWLEDGE_DEFAULTS`. */
export interface CrawlLimits {
  /** The name this crawler gives in `User-Agent` and looks for in `robots.txt`. */
  userAgent: string;
  maxPages: number;
  maxPageBytes: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Each request's time limit, its body included. */
  requestTimeoutMs: number;
  /** Redirects followed for one address, each within the sitemap's origin. */
  maxRedirects: number;
  /** Sitemaps read, the sitemap indexes' children included. */
  maxSitemaps: number;
}

type Allowed = (address: string) => boolean;
type Fetched = { ok: true; response: Response; url: string } | { ok: false; reason: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `address` following redirects itself, only within `origin` and only to addresses `allowed` lets through:
 * with `redirect: 'follow'`, fetch would go wherever a page points, another origin or a path robots.txt forbids.
 */
async function fetchWithin(address: string, origin: string, allowed: Allowed, limits: CrawlLimits): Promise<Fetched> {
  const signal = AbortSignal.timeout(limits.requestTimeoutMs);
  let url = address;
  for (let redirects = 0; redirects <= limits.maxRedirects; redirects++) {
    if (new URL(url).origin !== origin) return { ok: false, reason: `it leads to another origin (${url})` };
    if (!allowed(url)) return { ok: false, reason: `robots.txt disallows ${url}` };
    const response = await fetch(url, { redirect: 'manual', signal, headers: { 'user-agent': limits.userAgent } });
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) return { ok: true, response, url };
    await response.body?.cancel();
    url = new URL(location, url).href;
  }
  return { ok: false, reason: `more than ${limits.maxRedirects} redirects` };
}

/** The body as text, or `undefined` when it is longer than `maxBytes` (then it is not read further). */
async function cappedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes || !response.body) {
    await response.body?.cancel();
    return declared > maxBytes ? undefined : '';
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(chunk);
  }
  const charset = /charset=["']?([\w-]+)/i.exec(response.headers.get('content-type') ?? '')?.[1] ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder();
  }
  return decoder.decode(Buffer.concat(chunks));
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The `<loc>` addresses of a sitemap or sitemap index (the XML is that simple, so no XML parser is needed). */
export function sitemapLocations(xml: string): { index: boolean; locations: string[] } {
  const locations = [...xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?\s*<\/loc>/gi)].map((match) =>
    match[1].trim().replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]),
  );
  return { index: /<sitemapindex[\s>]/i.test(xml), locations };
}

/** Whether a status means "there are no rules": robots.txt says a missing file (4xx) allows everything. */
const noRules = (status: number) => status >= 400 && status < 500;

/**
 * The pages a sitemap lists, fetched: the sitemap (and sitemap indexes) first, then each page on the sitemap's own
 * origin that its robots.txt allows for `userAgent`, at most `maxPages`. A page that fails, is not HTML or is too
 * large is skipped with a log line. Throws when robots.txt or the sitemap cannot be read, so that the caller keeps the
 * pages it had.
 */
export async function readSitemap(
  sitemap: string,
  language: string,
  limits: CrawlLimits,
  log: (line: string) => void,
): Promise<Page[]> {
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
  const pageUrls = new Set<string>();
  let otherOrigins = 0;
  for (let read = 0; read < sitemaps.length && read < limits.maxSitemaps && pageUrls.size < limits.maxPages; read++) {
    const fetched = await fetchWithin(sitemaps[read], origin, allowed, limits);
    const xml = fetched.ok && fetched.response.ok ? await cappedText(fetched.response, limits.maxPageBytes) : undefined;
    if (xml === undefined) {
      if (fetched.ok) await fetched.response.body?.cancel().catch(() => {});
      const reason = fetched.ok ? `it answered ${fetched.response.status} or is too large` : fetched.reason;
      if (read === 0) throw new Error(`the sitemap ${sitemap} cannot be read: ${reason}`);
      log(`knowledge: skipped the sitemap ${sitemaps[read]}: ${reason}`);
      continue;
    }
    const { index, locations } = sitemapLocations(xml);
    for (const location of locations) {
      const url = URL.parse(location, fetched.ok ? fetched.url : sitemap);
      if (!url || url.origin !== origin) {
        otherOrigins++;
        continue;
      }
      url.hash = '';
      if (index) sitemaps.push(url.href);
      else if (!allowed(url.href))
        log(`knowledge: skipped ${url.href}: robots.txt disallows it for ${limits.userAgent}`);
      else if (pageUrls.size < limits.maxPages) pageUrls.add(url.href);
    }
  }
  if (otherOrigins > 0)
    log(`knowledge: ${sitemap} lists ${otherOrigins} addresses outside ${origin}; they are not fetched`);

  const queue = [...pageUrls];
  const pages: Page[] = [];
  const fetchNext = async (): Promise<void> => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      const page = await readPage(url, origin, allowed, language, limits).catch((error: Error) => error.message);
      if (typeof page === 'string') log(`knowledge: skipped ${url}: ${page}`);
      else pages.push(page);
    }
  };
  await Promise.all(Array.from({ length: limits.concurrency }, fetchNext));
  return pages;
}

/** One page of the sitemap, fetched and reduced to its main text; a string says why it was skipped. */
async function readPage(
  address: string,
  origin: string,
  allowed: Allowed,
  language: string,
  limits: CrawlLimits,
): Promise<Page | string> {
  const fetched = await fetchWithin(address, origin, allowed, limits);
  if (!fetched.ok) return fetched.reason;
  const { response, url } = fetched;
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !/html/i.test(type)) {
    await response.body?.cancel();
    return response.ok ? `it is not HTML (${type})` : `it answered ${response.status}`;
  }
  const html = await cappedText(response, limits.maxPageBytes);
  if (html === undefined) return `it is larger than ${limits.maxPageBytes} bytes`;
  // Readability takes some milliseconds of one core per page: let waiting requests through first.
  await nextTurn();
  const draft = htmlPage(html, url);
  const canonical = draft.url === undefined ? undefined : URL.parse(draft.url, url);
  return {
    url: canonical?.origin === origin ? canonical.href : url,
    title: draft.title ?? new URL(url).pathname,
    language: draft.language ?? language,
    sections: draft.sections,
    ...(draft.keywords ? { keywords: draft.keywords } : {}),
  };
}
