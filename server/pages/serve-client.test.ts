import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { listen, type RunningServer } from '../listen.ts';
import { precompressDir } from './precompress.ts';

const INDEX_HTML =
  '<!doctype html><html><head><title>AI Assistant</title></head><body><div id="root"></div></body></html>';
// Large and repetitive enough to be worth compressing, like a real bundle.
const APP_JS = `export const hello = () => ${JSON.stringify('hello world '.repeat(400))};\n`;

// Large enough to be served compressed too, as the real loader is.
const EMBED_JS = `(function(){${'/* the loader */'.repeat(200)}})();`;

const SECRET = 'secret-next-to-the-client-dir-7f3a';

let rootDir: string;
let clientDir: string;
let server: RunningServer;
let precompressed: number;

beforeAll(async () => {
  rootDir = await mkdtemp(join(tmpdir(), 'serve-client-'));
  clientDir = join(rootDir, 'client');
  // What a path that climbs out of the client directory would reach.
  await writeFile(join(rootDir, 'secret.txt'), SECRET);
  await mkdir(join(clientDir, 'assets'), { recursive: true });
  await writeFile(join(clientDir, 'index.html'), INDEX_HTML);
  await writeFile(join(clientDir, 'assets', 'index-Ab12Cd34.js'), APP_JS);
  await writeFile(join(clientDir, 'robot.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(clientDir, 'embed.js'), EMBED_JS);
  precompressed = await precompressDir(clientDir);
  const app = createApp({
    upstream: { kind: 'demo' },
    timeoutMs: 1_000,
    rateLimitPerMinute: 0,
    trustProxyHops: 0,
    security: { frameAncestors: ["'self'"], connectSrc: [] },
    clientDir,
    log: () => undefined,
  });
  server = await listen(app, { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
  await rm(rootDir, { recursive: true, force: true });
});

/** A raw GET (fetch would decompress and hide Content-Encoding). */
function get(path: string, acceptEncoding?: string, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      // The path goes out exactly as given: a URL string would be normalised first (`/../x` becoming `/x`).
      const req = request(
        { hostname, port, path, method, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('serving the built app', () => {
  it('writes .br and .gz copies only for files worth compressing', () => {
    // index-*.js and embed.js get both; index.html and robot.svg are under 1 KB and stay as they are.
    expect(precompressed).toBe(4);
  });

  it('serves index.html at / with the security headers and a revalidating cache', async () => {
    const response = await get('/');

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body.toString()).toBe(INDEX_HTML);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each([
    ['br', 'br', brotliDecompressSync],
    ['gzip, deflate, br', 'br', brotliDecompressSync],
    ['gzip', 'gzip', gunzipSync],
  ] as const)(
    'serves hashed assets compressed for Accept-Encoding "%s", cached for a year',
    async (accept, encoding, decode) => {
      const response = await get('/assets/index-Ab12Cd34.js', accept);

      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(response.headers['content-type']).toContain('javascript');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers.vary).toContain('Accept-Encoding');
      expect(response.body.length).toBeLessThan(APP_JS.length / 4);
      expect(decode(response.body).toString()).toBe(APP_JS);
    },
  );

  it('lets other sites load only the embed loader, revalidated so that a deploy reaches their pages', async () => {
    const loader = await get('/embed.js');
    const page = await get('/');

    expect(loader.status).toBe(200);
    expect(loader.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(loader.headers['cache-control']).toBe('no-cache');
    expect(page.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect((await get('/robot.svg')).headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('serves the plain file to a client that accepts no compression, still marked Vary', async () => {
    const response = await get('/assets/index-Ab12Cd34.js');

    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body.toString()).toBe(APP_JS);
    expect(response.headers.vary).toContain('Accept-Encoding');
  });

  it("answers only the app's own pages: every other path is a small 404 page, an API path a JSON 404", async () => {
    const head = await get('/', undefined, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const path of ['/index.html?lang=de', '/index.de.html', '/?embed=https%3A%2F%2Fshop.example&theme=dark']) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(page.headers['content-type'], path).toContain('text/html');
    }
    expect((await get('/healthz')).status).toBe(200);
    for (const path of ['/some/page', '/admin/', '/metrics', '/no-such-page', '/favicon.ico']) {
      const missing = await get(path);
      expect(missing.status, path).toBe(404);
      expect(missing.headers['content-type'], path).toContain('text/html');
      expect(missing.body.toString(), path).toContain('<title>Not found</title>');
    }
    const missingAsset = await get('/assets/index-Missing1.js');
    expect(missingAsset.status).toBe(404);
    // A year-long cache on a 404 would keep a deploy's new asset unreachable.
    expect(missingAsset.headers['cache-control']).not.toContain('immutable');
    const api = await get('/api/unknown');
    expect(api.status).toBe(404);
    expect(JSON.parse(api.body.toString()).error.code).toBe('not_found');
  });

  it('never serves the compressed copies of the pages and the loader as files', async () => {
    for (const path of ['/embed.js.br', '/embed.js.gz', '/index.html.br', '/index.de.html.gz']) {
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it.each([
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['*, br;q=0', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['br;q=0, gzip;q=0, identity;q=0', undefined],
    ['identity', undefined],
    // Read only as far as its first 256 characters.
    [`${'x, '.repeat(100)}br`, undefined],
  ])('sends the loader and the page with Accept-Encoding %#, as %s', async (accept, encoding) => {
    const response = await get('/embed.js', accept);
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe(encoding);
    const decode = { br: brotliDecompressSync, gzip: gunzipSync }[encoding ?? ''] ?? ((body: Buffer) => body);
    expect(decode(response.body).toString()).toBe(EMBED_JS);
  });

  it('does not serve files outside the client directory', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const response = await get(path);
      expect(response.body.toString(), path).not.toContain(SECRET);
    }
  });
});
