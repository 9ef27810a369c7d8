import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, SitemapRead } from '../server/knowledge/library/library.ts';

// A site for the knowledge library's tests: a sitemap, robots.txt, pages and redirects on 127.0.0.1, with every
// request recorded, so a test can assert what was never fetched. A second one, on another port, is another origin.

/** One answer of the site: a body with a type (and headers, such as `Content-Encoding`), a redirect, or silence. */
export type SiteAnswer =
  | {
      body: string | Uint8Array;
      type?: string;
      status?: number;
      headers?: Record<string, string>;
      /** Sent as `ETag`; a request whose `If-None-Match` names it gets a `304`. */
      etag?: string;
      /** Sent as `Last-Modified`; a request whose `If-Modified-Since` is not older (and no `If-None-Match`) gets a `304`. */
      lastModified?: string;
    }
  | { redirect: string; status?: 301 | 302 | 303 | 307 | 308 }
  | { hang: true };

export interface KnowledgeSite {
  /** `http://127.0.0.1:PORT` (or the loopback address and port it was asked to listen on). */
  origin: string;
  /** Serves `answer` at `path` from now on (a path not set is a 404). */
  set(path: string, answer: SiteAnswer): void;
  /** Every request so far: its path, its `User-Agent`, when it came (`performance.now()`) and its conditional headers. */
  requests: { path: string; userAgent: string; at: number; ifNoneMatch?: string; ifModifiedSince?: string }[];
  /** Holds every answer (or those of `paths`) until the returned function is called (to catch a sync half-way). */
  hold(paths?: string[]): () => void;
  close(): Promise<void>;
}

/** Where a site listens: another loopback address (127.0.0.0/8 is all loopback on Linux) and port, for a second host. */
export interface SiteListen {
  host?: string;
  port?: number;
}

export async function startKnowledgeSite(
  answers: Record<string, SiteAnswer> = {},
  { host = '127.0.0.1', port: asked = 0 }: SiteListen = {},
): Promise<KnowledgeSite> {
  const routes = new Map(Object.entries(answers));
  const requests: KnowledgeSite['requests'] = [];
  let gate: Promise<void> = Promise.resolve();
  let held: string[] | undefined;
  const server = createServer(async (request, response) => {
    const path = request.url ?? '/';
    const ifNoneMatch = request.headers['if-none-match'];
    const ifModifiedSince = request.headers['if-modified-since'];
    requests.push({
      path,
      userAgent: request.headers['user-agent'] ?? '',
      at: performance.now(),
      ...(ifNoneMatch ? { ifNoneMatch } : {}),
      ...(ifModifiedSince ? { ifModifiedSince } : {}),
    });
    if (!held || held.includes(path)) await gate;
    const answer = routes.get(path);
    if (answer === undefined) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
    } else if ('hang' in answer) {
      // Nothing is ever sent: the client's time limit ends it, or the site's close.
    } else if ('redirect' in answer) {
      response.writeHead(answer.status ?? 302, { Location: answer.redirect }).end();
    } else {
      const validators = {
        ...(answer.etag ? { ETag: answer.etag } : {}),
        ...(answer.lastModified ? { 'Last-Modified': answer.lastModified } : {}),
      };
      const notModified = ifNoneMatch
        ? answer.etag !== undefined && ifNoneMatch === answer.etag
        : ifModifiedSince !== undefined &&
          answer.lastModified !== undefined &&
          Date.parse(answer.lastModified) <= Date.parse(ifModifiedSince);
      if (notModified) response.writeHead(304, validators).end();
      else {
        response.writeHead(answer.status ?? 200, {
          'Content-Type': answer.type ?? 'text/html; charset=utf-8',
          ...validators,
          ...answer.headers,
        });
        response.end(answer.body);
      }
    }
  });
  server.listen(asked, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    set: (path, answer) => routes.set(path, answer),
    requests,
    hold(paths) {
      held = paths;
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A page of the site: enough text around its content for Readability to tell the article from the chrome. */
export function sitePage({
  title,
  lang = 'en',
  body,
  canonical,
}: {
  title: string;
  lang?: string;
  body: string;
  canonical?: string;
}): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title>${canonical ? `<link rel="canonical" href="${canonical}">` : ''}</head>
<body><header><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/cart">Cart</a></header>
<nav><ul><li><a href="/a">Gardening navigation link</a></li><li><a href="/b">Another menu entry</a></li></ul></nav>
<main><article>${body}</article></main>
<footer>Copyright footer text · Imprint · Privacy</footer></body></html>`;
}

/**
 * A sitemap (`<urlset>`) or, with `index`, a sitemap index of the given addresses; `lastmod` gives some of them a
 * `<lastmod>`.
 */
export function sitemapXml(locations: string[], index = false, lastmod: Record<string, string> = {}): string {
  const [outer, inner] = index ? ['sitemapindex', 'sitemap'] : ['urlset', 'url'];
  const entries = locations.map(
    (location) =>
      `<${inner}><loc>${location.replaceAll('&', '&amp;')}</loc>${lastmod[location] ? `<lastmod>${lastmod[location]}</lastmod>` : ''}</${inner}>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${outer} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</${outer}>`;
}

/** The pages a sitemap source's reading gave, without the other outcomes. */
export const pagesOf = ({ outcomes }: SitemapRead): Page[] =>
  outcomes.flatMap((outcome) => (outcome.kind === 'page' ? [outcome.page] : []));
