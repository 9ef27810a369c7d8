import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Hono } from 'hono';
import { EMBED_LOADER_PATH } from '../../contract/embed.ts';
import type { ServerEnv } from '../hono-env.ts';
import type { ServedPage } from './page-html.ts';

/** Which filled page a request gets (see server/page-html.ts): the one in the visitor's language. */
export type PageChooser = (c: Context<ServerEnv>) => ServedPage;

/** The page in the encoding the browser accepts best. */
function sendPage(c: Context<ServerEnv>, page: ServedPage): Response {
  const accepted = c.req.header('accept-encoding') ?? '';
  const [encoding, body] =
    page.br && /\bbr\b/i.test(accepted)
      ? ['br', page.br]
      : page.gzip && /\bgzip\b/i.test(accepted)
        ? ['gzip', page.gzip]
        : [undefined, page.html];
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

/**
 * Serves the built app from `clientDir` on `app`: the page (`index.html` filled with the site's settings at start-up,
 * see `choosePage`) at `/`, `/index.html` and extension-less paths (the single-page app's fallback), the files Vite
 * wrote with their `.br`/`.gz` siblings (made at build time by the Vite plugin, so no CPU is spent compressing per
 * request), and 404 for anything else, notably a missing `/assets/` file, which must not be answered with HTML under a
 * year-long cache header.
 */
export function serveClient(
  app: Hono<ServerEnv>,
  clientDir: string,
  choosePage: PageChooser,
  chooseLoader?: PageChooser,
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

  // The built pages (index.html and index.<language>.html, with their compressed copies) are templates, never served
  // as they are.
  if (chooseLoader) app.on(['GET', 'HEAD'], EMBED_LOADER_PATH, (c) => sendPage(c, chooseLoader(c)));
  app.on(['GET', 'HEAD'], ['/', '/:page{index(?:\\.[A-Za-z-]+)?\\.html}'], (c) => sendPage(c, choosePage(c)));

  app.use('*', serveStatic({ root: clientDir, precompressed: true }));

  app.on(['GET', 'HEAD'], '*', (c) => {
    const last = c.req.path.split('/').pop() ?? '';
    if (c.req.path.startsWith(HASHED_ASSETS) || c.req.path.startsWith('/api/') || last.includes('.')) {
      return c.notFound();
    }
    return sendPage(c, choosePage(c));
  });
}
