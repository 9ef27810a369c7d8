// One request of a crawl: redirects followed only within the origin and only where robots.txt allows, the body read
// up to a cap, and the text checked. Used for robots.txt, sitemaps and pages alike.

/** What one request may do; every one has a default in `KNOWLEDGE_DEFAULTS`. */
export interface FetchLimits {
  /** The name this crawler gives in `User-Agent` and looks for in `robots.txt`. */
  userAgent: string;
  /** Each request's time limit, its body included. */
  requestTimeoutMs: number;
  /** Redirects followed for one address, each within the sitemap's origin. */
  maxRedirects: number;
}

/**
 * How a request goes out: a crawl's fetch (site-address.ts), which checks the address it connects to. Given rather
 * than imported, so that the extractor's worker, which reads `pageText` here, loads no HTTP client.
 */
export interface Route {
  fetch(url: string, init: RequestInit): Promise<Response>;
}

export type Allowed = (address: string) => boolean;
/** A failure that may pass (the network, a time-out) is `transient`: a sync keeps the page's last copy. */
export type Fetched = { ok: true; response: Response; url: string } | { ok: false; reason: string; transient?: true };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `address` following redirects itself, only within `origin` and only to addresses `allowed` lets through:
 * with `redirect: 'follow'`, fetch would go wherever a page points, another origin or a path robots.txt forbids. A
 * failure of the request itself (refused, timed out) is a reason too, never a throw. `conditional` headers
 * (`If-None-Match`, `If-Modified-Since`) go with the first request only: a redirect's target has other validators.
 */
export async function fetchWithin(
  address: string,
  origin: string,
  allowed: Allowed,
  limits: FetchLimits & Route,
  conditional: Record<string, string> = {},
): Promise<Fetched> {
  const signal = AbortSignal.timeout(limits.requestTimeoutMs);
  let url = address;
  try {
    for (let redirects = 0; redirects <= limits.maxRedirects; redirects++) {
      if (new URL(url).origin !== origin) return { ok: false, reason: `it leads to another origin (${url})` };
      if (!allowed(url)) return { ok: false, reason: `robots.txt disallows ${url}` };
      const headers = { 'user-agent': limits.userAgent, ...(url === address ? conditional : {}) };
      const response = await limits.fetch(url, { redirect: 'manual', signal, headers });
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return { ok: true, response, url };
      await response.body?.cancel();
      url = new URL(location, url).href;
    }
  } catch (error) {
    return { ok: false, reason: `it cannot be fetched (${describe(error as Error)})`, transient: true };
  }
  return { ok: false, reason: `more than ${limits.maxRedirects} redirects` };
}

/** A fetch error in words: undici hides the cause (refused, reset) behind "fetch failed". */
function describe(error: Error): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error.name === 'TimeoutError') return 'it timed out';
  if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') return 'the name did not resolve';
  if (cause?.code === 'ECONNREFUSED') return 'the connection was refused';
  if (cause?.code === 'EINTERNAL') return cause.message ?? error.message;
  return cause?.message ? `${error.message}: ${cause.message}` : error.message;
}

/**
 * The body's bytes as they come, at most `maxBytes` of them (decompressed: a gzip bomb stops at the cap like any
 * other body). `whole` says whether the body ended within the cap; reading stops there either way.
 */
export async function* cappedBody(response: Response, maxBytes: number): AsyncGenerator<Uint8Array, boolean> {
  if (!response.body) return true;
  let size = 0;
  try {
    for await (const chunk of response.body) {
      const room = maxBytes - size;
      size += chunk.byteLength;
      if (size > maxBytes) {
        if (room > 0) yield chunk.subarray(0, room);
        return false;
      }
      yield chunk;
    }
    return true;
  } finally {
    await response.body.cancel().catch(() => {});
  }
}

/**
 * The response with its body unzipped when its first bytes say it is gzip (a `.xml.gz` sitemap, served as a file
 * rather than with `Content-Encoding`); a cap on the body read from it then applies to the unzipped bytes.
 */
export async function unzipped(response: Response): Promise<Response> {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const first = await reader.read();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(first.value);
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzip = !first.done && first.value[0] === 0x1f && first.value[1] === 0x8b;
  // The DOM typings give DecompressionStream a writable side of `BufferSource`, which Uint8Array is.
  const gunzip = new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>;
  return new Response(gzip ? body.pipeThrough(gunzip) : body, {
    status: response.status,
    headers: response.headers,
  });
}

/** The whole body, or `undefined` when it is longer than `maxBytes` (then it is not read further). */
export async function cappedBytes(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  const body = cappedBody(response, maxBytes);
  for (let next = await body.next(); ; next = await body.next()) {
    if (next.done) return next.value ? Buffer.concat(chunks) : undefined;
    chunks.push(next.value);
  }
}

/**
 * A C0 control character other than tab, line feed, form feed or carriage return. A regular expression scans a page
 * of 2 MB in a fraction of the time a loop over its characters takes on the server's thread.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is its job.
const CONTROL = /[\x00-\x08\x0b\x0e-\x1f]/;

/**
 * The bytes as text in the charset `contentType` names (UTF-8 when it names none or one this runtime does not know),
 * or `undefined` when they are not valid text in it or hold control characters: binary bytes served as `text/html`
 * would otherwise be indexed as words.
 */
export function pageText(bytes: Uint8Array, contentType: string): string | undefined {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    decoder = new TextDecoder('utf-8', { fatal: true });
  }
  try {
    const text = decoder.decode(bytes);
    return CONTROL.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/**
 * `text` with the credentials of every web address in it removed (`https://user:secret@host/` → `https://host/`),
 * so that a log line never carries them. The pattern is anchored on the scheme and never backtracks past an `@`.
 */
export const withoutCredentials = (text: string) => text.replace(/\b(https?:\/\/)[^/?#@\s]*@/gi, '$1');
