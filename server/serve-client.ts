import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import type { ServerEnv } from './hono-env.ts';

/** Vite's content-hashed output: a changed file gets a new name, so a cached copy never goes stale. */
const HASHED_ASSETS = '/assets/';

const COMPRESSIBLE = /^(?:text\/|application\/(?:javascript|json|xml)|image\/svg\+xml)/i;

/**
 * Serves the built app from `clientDir` on `app`: the files Vite wrote, their `.br`/`.gz` siblings (made at build
 * time by the Vite plugin, so no CPU is spent compressing per request), `index.html` for extension-less paths (the
 * single-page app's fallback), and 404 for anything else, notably a missing `/assets/` file, which must not be
 * answered with HTML under a year-long cache header.
 */
export function serveClient(app: Hono<ServerEnv>, clientDir: string): void {
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

  app.use('*', serveStatic({ root: clientDir, precompressed: true }));

  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const last = c.req.path.split('/').pop() ?? '';
    if (c.req.path.startsWith(HASHED_ASSETS) || c.req.path.startsWith('/api/') || last.includes('.')) {
      return c.notFound();
    }
    return serveStatic({ root: clientDir, path: 'index.html', precompressed: true })(c, next);
  });
}
