import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

// A static file server as GitHub Pages, Netlify, S3 or nginx are: it sends the files of a folder as they are, with
// nothing of the project's code (only node:http and node:fs), so that a test sees the build as a static host serves it.

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

export interface StaticHost {
  url: string;
  close(): Promise<void>;
}

/** Serves `dir` on a free port of 127.0.0.1: a folder's `index.html` at its path, 404 for anything missing. */
export async function startStaticHost(dir: string): Promise<StaticHost> {
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://host').pathname);
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    const found = file.startsWith(dir + sep) ? await stat(file).catch(() => undefined) : undefined;
    if (!found?.isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': found.size,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
