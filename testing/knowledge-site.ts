import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A site for the knowledge library's tests: a sitemap, robots.txt, pages and redirects on 127.0.0.1, with every
// request recorded, so a test can assert what was never fetched. A second one, on another port, is another origin.

/** One answer of the site: a body with a type (and headers, such as `Content-Encoding`), a redirect, or silence. */
export type SiteAnswer =
  | { body: string | Uint8Array; type?: string; status?: number; headers?: Record<string, string> }
  | { redirect: string; status?: 301 | 302 | 303 | 307 | 308 }
  | { hang: true };

export interface KnowledgeSite {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** Serves `answer` at `path` from now on (a path not set is a 404). */
  set(path: string, answer: SiteAnswer): void;
  /** Every request so far: its path and its `User-Agent`. */
  requests: { path: string; userAgent: string }[];
  /** Holds every answer until the returned function is called (to catch a rebuild half-way). */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startKnowledgeSite(answers: Record<string, SiteAnswer> = {}): Promise<KnowledgeSite> {
  const routes = new Map(Object.entries(answers));
  const requests: KnowledgeSite['requests'] = [];
  let gate: Promise<void> = Promise.resolve();
  const server = createServer(async (request, response) => {
    const path = request.url ?? '/';
    requests.push({ path, userAgent: request.headers['user-agent'] ?? '' });
    await gate;
    const answer = routes.get(path);
    if (answer === undefined) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
    } else if ('hang' in answer) {
      // Nothing is ever sent: the client's time limit ends it, or the site's close.
    } else if ('redirect' in answer) {
      response.writeHead(answer.status ?? 302, { Location: answer.redirect }).end();
    } else {
      response.writeHead(answer.status ?? 200, {
        'Content-Type': answer.type ?? 'text/html; charset=utf-8',
        ...answer.headers,
      });
      response.end(answer.body);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    set: (path, answer) => routes.set(path, answer),
    requests,
    hold() {
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

/** A sitemap (`<urlset>`) or, with `index`, a sitemap index of the given addresses. */
export function sitemapXml(locations: string[], index = false): string {
  const [outer, inner] = index ? ['sitemapindex', 'sitemap'] : ['urlset', 'url'];
  const entries = locations.map((location) => `<${inner}><loc>${location.replaceAll('&', '&amp;')}</loc></${inner}>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${outer} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</${outer}>`;
}
