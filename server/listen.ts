import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { ServerEnv } from './hono-env.ts';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './settings/settings.ts';

/** A listening server and how to stop it. */
export interface RunningServer {
  /** Where a browser on this machine reaches it, e.g. `http://localhost:3000` (or the host it is bound to). */
  url: string;
  port: number;
  server: Server;
  /** Stops listening and ends open connections, including streams still running. */
  close(): Promise<void>;
  /**
   * Stops listening, closes idle connections at once and lets the requests in flight finish (streams included) for
   * up to `graceMs`, then ends whatever is left. Resolves with how many connections had to be cut.
   */
  drain(graceMs: number): Promise<number>;
}

/**
 * Node looks for timed-out requests only this often (30 s by default), so a cut can come that much late: look every
 * second, or every tenth of the shorter timeout when that is shorter.
 */
function checkingIntervalMs({ headersTimeoutMs, requestTimeoutMs }: ConnectionLimits): number {
  return Math.min(1000, Math.ceil(Math.min(headersTimeoutMs, requestTimeoutMs) / 10));
}

/** How often, at most, the server says that it turned connections away. */
const DROP_LOG_INTERVAL_MS = 60_000;

function browsableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Serves `app` over HTTP on `host:port` (port 0: any free port) with @hono/node-server, cutting off clients that
 * send their requests too slowly and turning connections away beyond the cap (`limits`, by default
 * `DEFAULT_CONNECTION_LIMITS`). `log` hears, at most once a minute, how many connections the cap turned away.
 */
export function listen(
  app: Hono<ServerEnv>,
  {
    port,
    host,
    limits = DEFAULT_CONNECTION_LIMITS,
    log,
  }: { port: number; host: string; limits?: ConnectionLimits; log?: (line: string) => void },
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch: app.fetch,
      port,
      hostname: host,
      serverOptions: {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        connectionsCheckingInterval: checkingIntervalMs(limits),
      },
    }) as Server;
    if (limits.maxConnections > 0) {
      server.maxConnections = limits.maxConnections;
      if (log) logDrops(server, limits.maxConnections, log);
    }
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
        drain: (graceMs) => drain(server, graceMs),
      });
    });
  });
}

function logDrops(server: Server, cap: number, log: (line: string) => void): void {
  let dropped = 0;
  let lastLog = Number.NEGATIVE_INFINITY;
  server.on('drop', () => {
    dropped += 1;
    if (Date.now() - lastLog < DROP_LOG_INTERVAL_MS) return;
    lastLog = Date.now();
    log(`[server] MAX_CONNECTIONS (${cap}) reached: turning new connections away (${dropped} since the last notice)`);
    dropped = 0;
  });
}

/** How often a draining server looks for connections that have gone idle since their reply ended. */
const IDLE_CHECK_MS = 50;

function drain(server: Server, graceMs: number): Promise<number> {
  return new Promise((resolve) => {
    let cut = 0;
    // A keep-alive client would otherwise send its next request down a connection that is about to close.
    const onRequest = (_req: unknown, res: { setHeader(name: string, value: string): void }) =>
      res.setHeader('Connection', 'close');
    server.on('request', onRequest);
    const idleCheck = setInterval(() => server.closeIdleConnections(), IDLE_CHECK_MS);
    const deadline = setTimeout(() => {
      server.getConnections((_error, count) => {
        cut = count;
        server.closeAllConnections();
      });
    }, graceMs);
    server.close(() => {
      clearInterval(idleCheck);
      clearTimeout(deadline);
      server.off('request', onRequest);
      resolve(cut);
    });
    server.closeIdleConnections();
  });
}
