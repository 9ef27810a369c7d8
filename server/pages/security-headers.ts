import { EMBED_LOADER_PATH } from '../../contract/embed.ts';
import { OWNER_PAGE_PATH } from '../../contract/owner.ts';

/** What the security headers depend on. */
export interface SecurityOptions {
  /**
   * CSP `frame-ancestors` sources: who may embed the page in a frame. `'self'` (the default) allows only the site
   * itself, `'none'` nobody, and a list of origins (`https://www.example.com`) exactly those sites.
   */
  frameAncestors: string[];
  /**
   * Origins the page may call besides its own (CSP `connect-src`). Empty in proxy mode; a direct-mode build served by
   * this server needs its provider's origin here.
   */
  connectSrc: string[];
}

/** The default: embeddable by the site itself only. */
export const DEFAULT_FRAME_ANCESTORS = ["'self'"];

/** The `frame-ancestors` sources in force: `FRAME_ANCESTORS`, or the default (`'self'`) when it is empty. */
export function frameAncestorSources(frameAncestors: readonly string[]): readonly string[] {
  return frameAncestors.length > 0 ? frameAncestors : DEFAULT_FRAME_ANCESTORS;
}

// A CSP source list item: a keyword, `*`, a scheme (`https:`) or a host source with optional scheme, `*.` and port.
const SOURCE_PATTERN =
  /^(?:'self'|'none'|\*|[a-z][a-z0-9+.-]*:|(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*|(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(?:\d{1,5}|\*))?\/?)$/i;

/**
 * Parses a space-separated CSP source list from the environment (`FRAME_ANCESTORS`, `CSP_CONNECT_SRC`). Bare `self`
 * and `none` are accepted for the quoted keywords, since the quotes are easy to lose in a shell or `.env` file.
 * Throws on anything else, so a typo cannot become a header-injection or a silently ignored policy.
 */
export function parseSourceList(value: string, name: string): string[] {
  const sources = value
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((source) => (source === 'self' || source === 'none' ? `'${source}'` : source));
  for (const source of sources) {
    const port = /:(\d+)\/?$/.exec(source)?.[1];
    if (!SOURCE_PATTERN.test(source) || (port !== undefined && Number(port) > 65_535)) {
      throw new Error(
        `${name}: "${source}" is not a CSP source (use 'self', 'none' or an origin like https://example.com)`,
      );
    }
  }
  if (sources.includes("'none'") && sources.length > 1) {
    throw new Error(`${name}: 'none' cannot be combined with other sources`);
  }
  return sources;
}

/**
 * Who may frame the site: CSP `frame-ancestors`, and `X-Frame-Options`, which can only say "nobody" or "same origin", so
 * it is sent for `'none'` and `'self'` (for browsers that predate `frame-ancestors`) and left out for an allow-list,
 * which it would otherwise override. On its own in the dev server, whose page needs what the rest of the policy forbids
 * (Vite's inline scripts and websocket): framing then behaves as in production.
 */
export function frameHeaders(frameAncestors: string[]): Record<string, string> {
  const sources = frameAncestorSources(frameAncestors);
  const headers: Record<string, string> = { 'Content-Security-Policy': ['frame-ancestors', ...sources].join(' ') };
  const only = sources.length === 1 ? sources[0] : undefined;
  if (only === "'none'") headers['X-Frame-Options'] = 'DENY';
  if (only === "'self'") headers['X-Frame-Options'] = 'SAMEORIGIN';
  return headers;
}

/**
 * The headers on every response the server sends, as one record so the production server and `vite preview` send
 * exactly the same ones (the preview's static files do not go through Hono, so `hono/secure-headers` cannot cover
 * them).
 *
 * - The CSP allows only same-origin scripts and connections; `style-src 'unsafe-inline'` is required because
 *   Emotion (Chakra UI) injects `<style>` elements at run time.
 * - Framing: {@link frameHeaders}.
 */
export function securityHeaders(options: SecurityOptions): Record<string, string> {
  const frame = frameHeaders(options.frameAncestors);
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    ['connect-src', "'self'", ...options.connectSrc].join(' '),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    frame['Content-Security-Policy'],
  ].join('; ');
  return {
    ...frame,
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  };
}

/**
 * The headers for one path. The embed loader is the one file meant for other sites' pages: their `<script>` fetches it
 * without CORS, which `Cross-Origin-Resource-Policy: same-origin` would block. The owner's page is framed by no one,
 * whatever `FRAME_ANCESTORS` lets frame the chat: a site that may frame the chat must not frame the page where the
 * owner types a token (clickjacking). Everything else, the framed app included, keeps the site's headers (a frame is
 * a navigation, which CORP does not govern; `frame-ancestors` does).
 */
export function headersForPath(headers: Record<string, string>, path: string): Record<string, string> {
  if (path === EMBED_LOADER_PATH) return { ...headers, 'Cross-Origin-Resource-Policy': 'cross-origin' };
  if (path !== OWNER_PAGE_PATH) return headers;
  const policy = headers['Content-Security-Policy'].replace(/frame-ancestors [^;]*/, "frame-ancestors 'none'");
  return { ...headers, 'Content-Security-Policy': policy, 'X-Frame-Options': 'DENY' };
}
