import { gunzipSync } from 'node:zlib';
// The sitemap source's HTTP: its limits, redirects kept within the site, capped bodies, and failures in words.

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

export type Allowed = (address: string) => boolean;
type Fetched = { ok: true; response: Response; url: string } | { ok: false; reason: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `address` following redirects itself, only within `origin` and only to addresses `allowed` lets through:
 * with `redirect: 'follow'`, fetch would go wherever a page points, another origin or a path robots.txt forbids.
 */
export async function fetchWithin(
  address: string,
  origin: string,
  allowed: Allowed,
  limits: CrawlLimits,
  conditional: Record<string, string> = {},
): Promise<Fetched> {
  const signal = AbortSignal.timeout(limits.requestTimeoutMs);
  let url = address;
  for (let redirects = 0; redirects <= limits.maxRedirects; redirects++) {
    if (new URL(url).origin !== origin) return { ok: false, reason: `it leads to another origin (${url})` };
    if (!allowed(url)) return { ok: false, reason: `robots.txt disallows ${url}` };
    const headers = { 'user-agent': limits.userAgent, ...(url === address ? conditional : {}) };
    const response = await fetch(url, { redirect: 'manual', signal, headers });
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) return { ok: true, response, url };
    await response.body?.cancel();
    url = new URL(location, url).href;
  }
  return { ok: false, reason: `more than ${limits.maxRedirects} redirects` };
}

/**
 * The body as text, or `undefined` when it is longer than `maxBytes` (then it is not read further). A gzipped body
 * (a `.xml.gz` sitemap: its first bytes say so) is unzipped, within the same cap.
 */
export async function cappedText(response: Response, maxBytes: number): Promise<string | undefined> {
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
  let bytes = Buffer.concat(chunks);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: maxBytes });
    } catch {
      return undefined;
    }
  }
  return decoder.decode(bytes);
}

/** A failed fetch in words: undici's `fetch failed` hides its cause. */
export function fetchFailure(error: Error): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error.name === 'TimeoutError') return 'it timed out';
  if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') return 'the name did not resolve';
  if (cause?.code === 'ECONNREFUSED') return 'the connection was refused';
  return cause?.message ?? error.message;
}
