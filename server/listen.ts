import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

/** A listening server and how to stop it. */
export interface RunningServer {
  /** Where a browser on this machine reaches it, e.g. `http://localhost:3000` (or the host it is bound to). */
  url: string;
  port: number;
  server: Server;
  /** Stops listening and ends open connections, including streams still running. */
  close(): Promise<void>;
}

function browsableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Serves `app` over HTTP on `host:port` (port 0: any free port) with @hono/node-server. */
export function listen(app: Hono, { port, host }: { port: number; host: string }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }) as Server;
    server.once('error', reject);
    server.once('listening', () => {
      const actualPort = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${browsableHost(host)}:${actualPort}`,
        port: actualPort,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
