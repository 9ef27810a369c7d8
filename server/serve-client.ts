import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import { EMBED_LANG_PARAM } from '../contract/embed.ts';
import { pageFileName } from '../locales/languages.ts';
import type { ServerEnv } from './hono-env.ts';
import { pageLanguage } from './page-language.ts';

/** Vite's content-hashed output: a changed file gets a new name, so a cached copy never goes stale. */
const HASHED_ASSETS = '/assets/';

const COMPRESSIBLE = /^(?:text\/|application\/(?:javascript|json|xml)|image\/svg\+xml)/i;

/** The app's page, rather than a file: `/` and extension-less paths (the single-page app's fallback). */
function isPagePath(path: string): boolean {
  const last = path.split('/').pop() ?? '';
  return !path.startsWith(HASHED_ASSETS) && !path.startsWith('/api/') && !last.includes('.');
}

/**
 * Serves the built app from `clientDir` on `app`: the files Vite wrote, their `.br`/`.gz` siblings (made at build
 * time by the Vite plugin, so no CPU is spent compressing per request), the page for `/` and extension-less paths in
 * the visitor's language (`index.<language>.html`, chosen by server/page-language.ts from `?lang=`, the site's
 * `language` and `Accept-Language`), and 404 for anything else, notably a missing `/assets/` file, which must not be
 * answered with HTML under a year-long cache header.
 */
export function serveClient(app: Hono<ServerEnv>, clientDir: string, language?: string): void {
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

  // Before the files: they would answer `/` with index.html, which is English.
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    if (!isPagePath(c.req.path)) return next();
    const chosen = pageLanguage({
      asked: c.req.query(EMBED_LANG_PARAM),
      configured: language,
      acceptLanguage: c.req.header('accept-language'),
    });
    // Caches must keep the languages apart too.
    c.header('Vary', 'Accept-Language');
    return serveStatic({ root: clientDir, path: pageFileName(chosen), precompressed: true })(c, next);
  });

  app.use('*', serveStatic({ root: clientDir, precompressed: true }));
}
