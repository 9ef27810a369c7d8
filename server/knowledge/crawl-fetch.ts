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

export type Allowed = (address: string) => boolean;
export type Fetched = { ok: true; response: Response; url: string } | { ok: false; reason: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `address` following redirects itself, only within `origin` and only to addresses `allowed` lets through:
 * with `redirect: 'follow'`, fetch would go wherever a page points, another origin or a path robots.txt forbids. A
 * failure of the request itself (refused, timed out) is a reason too, never a throw.
 */
export async function fetchWithin(
  address: string,
  origin: string,
  allowed: Allowed,
  limits: FetchLimits,
): Promise<Fetched> {
  const signal = AbortSignal.timeout(limits.requestTimeoutMs);
  let url = address;
  try {
    for (let redirects = 0; redirects <= limits.maxRedirects; redirects++) {
      if (new URL(url).origin !== origin) return { ok: false, reason: `it leads to another origin (${url})` };
      if (!allowed(url)) return { ok: false, reason: `robots.txt disallows ${url}` };
      const response = await fetch(url, { redirect: 'manual', signal, headers: { 'user-agent': limits.userAgent } });
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return { ok: true, response, url };
      await response.body?.cancel();
      url = new URL(location, url).href;
    }
  } catch (error) {
    return { ok: false, reason: `it cannot be fetched (${describe(error)})` };
  }
  return { ok: false, reason: `more than ${limits.maxRedirects} redirects` };
}

/** A fetch error's own words: undici hides the cause (refused, reset) behind "fetch failed". */
function describe(error: unknown): string {
  const { message, cause } = error as Error & { cause?: Error };
  return cause?.message ? `${message}: ${cause.message}` : message;
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

/** Whether `text` holds a C0 control character other than tab, line feed, form feed or carriage return. */
function hasControl(text: string): boolean {
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d) return true;
  }
  return false;
}

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
    return hasControl(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/**
 * `text` with the credentials of every web address in it removed (`https://user:secret@host/` → `https://host/`),
 * so that a log line never carries them. The pattern is anchored on the scheme and never backtracks past an `@`.
 */
export const withoutCredentials = (text: string) => text.replace(/\b(https?:\/\/)[^/?#@\s]*@/gi, '$1');
