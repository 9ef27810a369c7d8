import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Hono } from 'hono';
import { parseAccept } from 'hono/utils/accept';
import { EMBED_LOADER_PATH } from '../../contract/embed.ts';
import { OWNER_PAGE_FILE, OWNER_PAGE_PATH } from '../../contract/owner.ts';
import type { ServerEnv } from '../hono-env.ts';
import type { ServedPage } from './page-html.ts';
import type { SecurityOptions } from './security-headers.ts';

/** The pages' options, as the app is given them (composed with the other rooms' in server/app-options.ts). */
export interface PageOptions {
  security: SecurityOptions;
  /** The built client (`dist/client`) to serve next to the proxy; left out in Vite's dev and preview servers. */
  clientDir?: string;
}

/** Which filled page a request gets (see server/page-html.ts): the one in the visitor's language. */
export type PageChooser = (c: Context<ServerEnv>) => ServedPage;

/** A longer `Accept-Encoding` is read only this far: a header's cost must not be the client's choice. */
const MAX_ACCEPT_ENCODING = 256;

/**
 * The coding of `page` that the browser accepts best (`q` values honoured, brotli first among equals), or `undefined`
 * for the plain page: never one the browser refused (`q=0`), and identity whenever nothing else is accepted.
 */
function chooseEncoding(header: string | undefined, page: ServedPage): 'br' | 'gzip' | undefined {
  if (!header) return undefined;
  const accepted = parseAccept(header.slice(0, MAX_ACCEPT_ENCODING));
  const q = (coding: string) =>
    (accepted.find((entry) => entry.type.toLowerCase() === coding) ?? accepted.find((entry) => entry.type === '*'))
      ?.q ?? 0;
  const offered = (['br', 'gzip'] as const).filter((coding) => page[coding] && q(coding) > 0);
  return offered.sort((a, b) => q(b) - q(a))[0];
}

/** The page in the encoding the browser accepts best. */
function sendPage(c: Context<ServerEnv>, page: ServedPage): Response {
  const encoding = chooseEncoding(c.req.header('accept-encoding'), page);
  const body = (encoding && page[encoding]) || page.html;
  const headers: Record<string, string> = {
    'Content-Type': page.type,
    'Content-Length': String(body.length),
    // Caches must keep the languages apart (server/page-language.ts).
    Vary: 'Accept-Language',
  };
  if (encoding) headers['Content-Encoding'] = encoding;
  return new Response(c.req.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}

/** Vite's content-hashed output: a changed file gets a new name, so a cached copy never goes stale. */
const HASHED_ASSETS = '/assets/';

const COMPRESSIBLE = /^(?:text\/|application\/(?:javascript|json|xml)|image\/svg\+xml)/i;

/** The app's page: `index.html` and each language's `index.<language>.html`. */
export const PAGE_FILE = /^\/index(?:\.[A-Za-z-]+)?\.html$/;

/**
 * The compressed copies of the pages and the loader: the build's, not the ones filled and localized at start-up, so
 * never served as files.
 */
const RAW_COPY = /^\/(?:index(?:\.[A-Za-z-]+)?\.html|embed\.js)\.(?:br|gz)$/;

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>Not found</title></head><body><h1>Not found</h1><p>There is no page at this address.</p></body></html>';

/**
 * Serves the built app from `clientDir` on `app`: the page (filled with the site's settings at start-up, see
 * `choosePage`) at `/`, `/index.html` and each language's page, the loader, the files Vite wrote with their
 * `.br`/`.gz` siblings (made at build time by the Vite plugin, so no CPU is spent compressing per request), the owner's
 * page at `OWNER_PAGE_PATH` when there is one (`ownerPage`: `OWNER_TOKEN` is set), and a small
 * 404 page for every other path: only the app's own pages are the app, so a mistyped address (or health check) is
 * not answered 200. A missing `/assets/` file must not be answered with HTML under a year-long cache header either.
 */
export function serveClient(
  app: Hono<ServerEnv>,
  clientDir: string,
  choosePage: PageChooser,
  chooseLoader?: PageChooser,
  ownerPage?: ServedPage,
): void {
  app.use('*', async (c, next) => {
    await next();
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return;
    const { headers } = c.res;
    if (c.res.status === 200 && c.req.path.startsWith(HASHED_ASSETS)) {
      headers.set('Cache-Control', 'public, max-age=31536000, immutable');
    } else if (!headers.has('Cache-Control')) {
      // index.html and unhashed files: always revalidate, so a deploy is seen on the next visit.
      headers.set('Cache-Control', 'no-cache');
    }
    // Caches must keep the compressed and the plain copy apart, even when this client got the plain one.
    if (COMPRESSIBLE.test(headers.get('Content-Type') ?? '') && !/accept-encoding/i.test(headers.get('Vary') ?? '')) {
      headers.append('Vary', 'Accept-Encoding');
    }
  });

  if (chooseLoader) app.on(['GET', 'HEAD'], EMBED_LOADER_PATH, (c) => sendPage(c, chooseLoader(c)));
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    if (c.req.path === '/' || PAGE_FILE.test(c.req.path)) return sendPage(c, choosePage(c));
    if (c.req.path === OWNER_PAGE_PATH && ownerPage) return sendPage(c, ownerPage);
    // The owner's page as a file (and its copies) is never served: only at OWNER_PAGE_PATH, and only with a token set.
    if (RAW_COPY.test(c.req.path) || c.req.path.startsWith(OWNER_PAGE_FILE)) return notFoundPage(c);
    await next();
  });

  app.use('*', serveStatic({ root: clientDir, precompressed: true }));

  app.on(['GET', 'HEAD'], '*', (c) => (c.req.path.startsWith('/api/') ? c.notFound() : notFoundPage(c)));
}

function notFoundPage(c: Context<ServerEnv>): Response {
  return c.html(c.req.method === 'HEAD' ? '' : NOT_FOUND_PAGE, 404);
}
