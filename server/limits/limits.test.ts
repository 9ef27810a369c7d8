// The production server's limits against a visitor who tries, in a process of its own as `npm start` runs it:
// forwarded addresses that mean one visitor, slow clients cut off, a connection cap, settings that refuse to be wrong.
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CHAT_COMPLETIONS_PATH } from '../../contract/llm.ts';
import { awayFromMinuteEdge, type ProductionServer } from '../../testing/production-app.ts';
import { chat, productionHarness, statuses, TEST_TIMEOUT_MS, until } from '../../testing/production-harness.ts';

const { startServer } = productionHarness('limits');

/** A connection that writes `text` and no more; `ended` resolves with what came back once the server closes it. */
function rawConnection(server: ProductionServer, text: string) {
  const { hostname, port } = new URL(server.url);
  const started = Date.now();
  const socket: Socket = connect(Number(port), hostname);
  socket.write(text);
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
  });
  const connected = new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const ended = new Promise<{ received: string; elapsedMs: number }>((resolve) => {
    // A connection turned away may end in a reset: that is a close too.
    socket.on('error', () => undefined);
    socket.once('close', () => resolve({ received, elapsedMs: Date.now() - started }));
  });
  return { socket, connected, ended };
}

/** A chat request that declares a 100-byte body and sends 10 of them. */
const SLOW_BODY = `POST ${CHAT_COMPLETIONS_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"message`;

describe('forwarded addresses', () => {
  it(
    'key one visitor per address however its proxy wrote it, and the peer when the header names no address',
    async () => {
      await awayFromMinuteEdge();
      const [byAddress, byHops] = await Promise.all([
        startServer({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' }),
        startServer({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '2' }),
      ]);
      const forwarded = (server: ProductionServer, ...entries: (string | undefined)[]) =>
        statuses(...entries.map((forwardedFor) => () => chat(server, { forwardedFor })));

      // A port per connection, and the spellings of one IPv4 address, are one visitor.
      expect(
        await forwarded(
          byAddress,
          '198.51.100.1:5678',
          '198.51.100.1:6789',
          '::ffff:198.51.100.1',
          '[0:0:0:0:0:ffff:c633:6401]:443',
        ),
      ).toEqual([200, 200, 429, 429]);
      // One /64, with or without brackets and ports.
      expect(await forwarded(byAddress, '[2001:db8:1:2::1]:443', '2001:db8:1:2::2', '[2001:db8:1:2:ffff::3]')).toEqual([
        200, 200, 429,
      ]);
      // No address in the header: the peer's own key (here the same as a request without the header).
      expect(await forwarded(byAddress, 'unknown', 'not-an-address', undefined)).toEqual([200, 200, 429]);
      // Two proxies trusted, one entry given: the client wrote it, so the peer is the key.
      expect(await forwarded(byHops, '198.51.100.1', '198.51.100.2', '198.51.100.3')).toEqual([200, 200, 429]);
      expect(await forwarded(byHops, 'forged, 203.0.113.9, 10.0.0.1')).toEqual([200]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('slow clients', () => {
  it(
    'are cut off once their request takes longer than the configured time, headers or body',
    async () => {
      const server = await startServer({ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1000' });
      const [slowBody, slowHeaders] = await Promise.all([
        rawConnection(server, SLOW_BODY).ended,
        rawConnection(server, `POST ${CHAT_COMPLETIONS_PATH} HTTP/1.1\r\nHost: x\r\n`).ended,
      ]);

      for (const cut of [slowBody, slowHeaders]) {
        expect(cut.received).toMatch(/^HTTP\/1\.1 408 /);
        expect(cut.elapsedMs).toBeGreaterThanOrEqual(950);
        // Node's defaults would hold them for 300 s and 60 s, checked only every 30 s.
        expect(cut.elapsedMs).toBeLessThan(4000);
      }
      expect((await chat(server)).status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'cannot hold more connections than MAX_CONNECTIONS; a closed one frees its place',
    async () => {
      // Long timeouts: the held connections stay until this test lets them go.
      const server = await startServer({
        MAX_CONNECTIONS: '2',
        HEADERS_TIMEOUT_MS: '60000',
        REQUEST_TIMEOUT_MS: '60000',
      });
      const held = [rawConnection(server, SLOW_BODY), rawConnection(server, SLOW_BODY)];
      await Promise.all(held.map((connection) => connection.connected));
      try {
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const refused = await rawConnection(server, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n').ended;
          expect(refused.received).toBe('');
        }
        expect(server.output.join('\n')).toContain('MAX_CONNECTIONS (2) reached');

        held[0].socket.destroy();
        const status = await until(
          () =>
            fetch(`${server.url}/healthz`).then(
              (response) => response.status,
              () => 0,
            ),
          (value) => value === 200,
          'a place to free up',
        );
        expect(status).toBe(200);
      } finally {
        for (const connection of held) connection.socket.destroy();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('start-up', () => {
  it.each(['10.0.0.0/', '0.0.0.0/0', '10.0.0.0/0x8'])(
    'refuses to start with TRUST_PROXY=%s, naming the setting and the value',
    async (value) => {
      const starting = startServer({ TRUST_PROXY: value });

      await expect(starting).rejects.toThrow(/exited \(code 1\)/);
      await expect(starting).rejects.toThrow(new RegExp(`TRUST_PROXY .*"${value.replace(/[./]/g, '\\$&')}"`));
    },
    TEST_TIMEOUT_MS,
  );
});
