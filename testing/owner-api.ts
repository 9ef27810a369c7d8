import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The site owner's API as the actions call it: a real HTTP server on 127.0.0.1 that records every request (method,
// the path and query as they arrived, headers, raw body) and answers as the test says, by path.

export interface OwnerApiCall {
  method: string;
  /** The request target as it arrived, still encoded. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers a recorded call; the default answers `{ "ok": true }`. */
export type OwnerApiAnswer = (call: OwnerApiCall, res: ServerResponse) => void;

export interface OwnerApi {
  url: string;
  calls: OwnerApiCall[];
  close(): Promise<void>;
}

/** Starts the owner's API: `answers` by the path's first segment (`/slow/…` → `slow`), JSON `{ ok: true }` otherwise. */
export async function startOwnerApi(answers: Record<string, OwnerApiAnswer> = {}): Promise<OwnerApi> {
  const calls: OwnerApiCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      calls.push(call);
      const answer = answers[call.url.split(/[/?]/)[1] ?? ''];
      if (answer) answer(call, res);
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
