import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// Host pages for the embed's browser tests and its Lighthouse comparison.

/** A stand-in for a site that embeds the chat: another port of 127.0.0.1, so another origin than the app's. */
export interface HostSite {
  /** `http://127.0.0.1:PORT`, without a trailing slash: what the browser sends as this site's origin. */
  origin: string;
  /** Serves `html` at `path` from now on, with these response headers too (a CSP); returns the page's URL. */
  page(path: string, html: string, headers?: Record<string, string>): string;
  close(): Promise<void>;
}

/** What a host page may carry: the snippet's `data-` attributes, its own CSS, and some content of its own. */
export interface HostPageOptions {
  /** The app's origin, where the snippet loads `/embed.js` from. */
  appOrigin: string;
  /** `data-` attributes of the snippet, without the prefix: `{ position: 'left' }`. */
  data?: Record<string, string>;
  /** The site's own CSS. */
  css?: string;
  /** Whether the page carries the snippet at all (default: yes); without it, the page to compare with. */
  snippet?: boolean;
  /** Tags of the site's own in its head, before the snippet (another vendor's scripts). */
  head?: string;
  /**
   * A footer of the site's own, fixed to the bottom of the window and 56 px tall, with an "Imprint" link in its right
   * corner: where the launcher sits by default.
   */
  footer?: boolean;
}

const FIXED_FOOTER = `<footer style="position:fixed;inset:auto 0 0 0;height:56px;display:flex;justify-content:flex-end;align-items:center;padding:0 24px;background:#eee"><a href="#imprint">Imprint</a></footer>`;

/** A plain page with a heading, some text, a link and a button of the site's own, and the snippet last. */
export function hostPageHtml({
  appOrigin,
  data = {},
  css = '',
  snippet = true,
  head = '',
  footer = false,
}: HostPageOptions): string {
  const attributes = Object.entries(data)
    .map(([name, value]) => ` data-${name}="${value}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A shop that embeds the assistant</title><style>${css}</style>${head}</head>
<body>
<main><h1>Garden tools</h1><p>Spades, rakes and hoes, shipped the next day.</p>
<p><a href="#delivery">Delivery terms</a></p><button type="button">Add to basket</button></main>
${footer ? FIXED_FOOTER : ''}
${snippet ? `<script src="${appOrigin}/embed.js" async${attributes}></script>` : ''}
</body>
</html>`;
}

/** Starts a host site on a free port of 127.0.0.1; pages are added with `page()`, anything else is a 404. */
export async function startHostSite(): Promise<HostSite> {
  const pages = new Map<string, { html: string; headers?: Record<string, string> }>();
  const server = createServer((request, response) => {
    const found = pages.get(new URL(request.url ?? '/', 'http://host').pathname);
    response.writeHead(found === undefined ? 404 : 200, {
      'Content-Type': 'text/html; charset=utf-8',
      ...found?.headers,
    });
    response.end(found?.html ?? 'Not found');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page(path, html, headers) {
      pages.set(path, { html, headers });
      return `${origin}${path}`;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
