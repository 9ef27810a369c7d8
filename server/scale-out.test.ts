// @vitest-environment node
// The production server as operators run it: several processes, a real Redis, signals, metrics. Each test starts
// what it needs on 127.0.0.1 and stops it.
import { rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_INFO_FILE, CHAT_COMPLETIONS_PATH, MAX_TOKENS } from '../contract/llm.ts';
import { FAKE_REPLY, type FakeProvider, startFakeProvider } from '../testing/fake-provider.ts';
import { buildServerOnly, type ProductionServer, startProductionServer } from '../testing/production-app.ts';
import { freePort, type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { nextUtcMidnight } from './spend-cap.ts';

/** Under node_modules, so that the built server resolves its dependencies (ioredis, prom-client) as dist/ does. */
const BUILD_DIR = fileURLToPath(new URL('../node_modules/.cache/scale-out-test/', import.meta.url));
const DIRECT_ORIGIN = 'https://direct-provider.example';
const TOKEN = 'test-upstream-token-scale-7d1e';
/** The fake provider counts words: this prompt is 2 tokens and its reply (FAKE_REPLY) 5, so 7 per exchange. */
const PROMPT = 'hello there';
const TOKENS_PER_EXCHANGE = 7;
const TEST_TIMEOUT_MS = 20_000;

let provider: FakeProvider;
let redis: RedisServer;
const running: ProductionServer[] = [];

let proxyEntry: string;
let directEntry: string;

beforeAll(async () => {
  [proxyEntry, directEntry] = await Promise.all([
    buildServerOnly(`${BUILD_DIR}proxy`),
    // A direct-mode build as the client build records it: the same server next to a page that calls its provider.
    buildServerOnly(`${BUILD_DIR}direct`, {
      [BUILD_INFO_FILE]: JSON.stringify({ mode: 'direct', providerOrigin: DIRECT_ORIGIN }),
    }),
  ]);
  [provider, redis] = await Promise.all([startFakeProvider(), startRedisServer()]);
}, 60_000);

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
  provider.reset();
});

afterAll(async () => {
  await Promise.all([provider?.close(), redis?.stop()]);
  await rm(BUILD_DIR, { recursive: true, force: true });
});

async function startServer(env: Record<string, string>, build: 'proxy' | 'direct' = 'proxy') {
  const server = await startProductionServer(build === 'proxy' ? proxyEntry : directEntry, {
    ...(build === 'proxy' ? { LLM_BASE_URL: provider.baseURL, LLM_API_KEY: TOKEN } : {}),
    LLM_TIMEOUT_MS: '5000',
    RATE_LIMIT_PER_MINUTE: '0',
    ...env,
  });
  running.push(server);
  return server;
}

function chat(server: ProductionServer, options: { stream?: boolean; forwardedFor?: string } = {}) {
  return fetch(server.url + CHAT_COMPLETIONS_PATH, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {}),
    },
    body: JSON.stringify({
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: MAX_TOKENS,
      ...(options.stream ? { stream: true } : {}),
    }),
  });
}

/** Sends chat requests one after the other and returns their statuses (bodies read, so connections are reused). */
async function statuses(...requests: (() => Promise<Response>)[]): Promise<number[]> {
  const result: number[] = [];
  for (const request of requests) {
    const response = await request();
    await response.text();
    result.push(response.status);
  }
  return result;
}

async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 8_000;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readiness(server: ProductionServer): Promise<{ status: number; redis: string }> {
  const response = await fetch(`${server.url}/readyz`);
  return { status: response.status, redis: ((await response.json()) as { redis: string }).redis };
}

/** Rate-limit windows are whole clock minutes: a test that counts to a limit must not straddle two of them. */
async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}

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

/** One sample of a Prometheus text exposition, e.g. `sample(text, 'x_total', 'status="200"')`. */
function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((entry) => entry.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('replicas behind a load balancer', () => {
  it(
    'share one rate limit through Redis, and the metrics count what each saw',
    async () => {
      const env = { REDIS_URL: `${redis.url}/1`, RATE_LIMIT_PER_MINUTE: '4' };
      const [a, b] = await Promise.all([
        startServer({ ...env, METRICS_PORT: String(await freePort()) }),
        startServer(env),
      ]);
      await Promise.all(
        [a, b].map((server) =>
          until(
            () => readiness(server),
            (r) => r.status === 200,
            'Redis',
          ),
        ),
      );
      await awayFromMinuteEdge();

      const seen = await statuses(
        () => chat(a),
        () => chat(b),
        () => chat(a),
        () => chat(b),
        () => chat(a),
        () => chat(b),
      );

      // Per process the limit would allow 4 each; together they allow 4.
      expect(seen).toEqual([200, 200, 200, 200, 429, 429]);
      expect(provider.requests).toHaveLength(4);

      expect(a.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const metrics = await (await fetch(a.metricsUrl as string)).text();
      expect(sample(metrics, 'ai_assistant_chat_requests_total', 'status="200"')).toBe(2);
      expect(sample(metrics, 'ai_assistant_chat_requests_total', 'status="429"')).toBe(1);
      expect(sample(metrics, 'ai_assistant_rate_limited_total', 'reason="rate_limit"')).toBe(1);
      expect(sample(metrics, 'ai_assistant_upstream_duration_seconds_count')).toBe(2);
      expect(sample(metrics, 'ai_assistant_tokens_total', 'kind="prompt"')).toBe(4);
      expect(sample(metrics, 'ai_assistant_tokens_total', 'kind="completion"')).toBe(10);
      expect(sample(metrics, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      // Never on the public port.
      expect(await (await fetch(`${a.url}/metrics`)).text()).not.toContain('ai_assistant_');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'share one daily token cap, and past it answer 429 until midnight UTC without calling the provider',
    async () => {
      const env = { REDIS_URL: `${redis.url}/2`, LLM_DAILY_TOKEN_LIMIT: String(3 * TOKENS_PER_EXCHANGE - 1) };
      const [a, b] = await Promise.all([startServer(env), startServer(env)]);
      await Promise.all(
        [a, b].map((server) =>
          until(
            () => readiness(server),
            (r) => r.status === 200,
            'Redis',
          ),
        ),
      );

      expect((await chat(a)).status).toBe(200);
      const streamed = await chat(b, { stream: true });
      const streamedText = await streamed.text();
      expect(await statuses(() => chat(a))).toEqual([200]);
      const refusedB = await chat(b);
      const refusedA = await chat(a, { stream: true });

      // The stream asked the provider for its usage, and the page got the reply without that chunk.
      expect(provider.requests[1].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      expect(streamedText).toContain('"fake "');
      expect(streamedText).toContain('data: [DONE]');
      expect(streamedText).not.toContain('usage');

      expect([refusedA.status, refusedB.status]).toEqual([429, 429]);
      expect((await refusedB.json()).error.code).toBe('daily_token_limit');
      const toMidnight = (nextUtcMidnight() - Date.now()) / 1000;
      expect(Number(refusedB.headers.get('retry-after'))).toBeGreaterThan(toMidnight - 5);
      expect(Number(refusedB.headers.get('retry-after'))).toBeLessThanOrEqual(Math.ceil(toMidnight) + 1);
      expect(provider.requests).toHaveLength(3);
      // Totals, never texts.
      const logs = [...a.output, ...b.output].join('\n');
      expect(logs).toContain(`today=${3 * TOKENS_PER_EXCHANGE}/${3 * TOKENS_PER_EXCHANGE - 1}`);
      expect(logs).not.toContain(PROMPT);
      expect(logs).not.toContain(FAKE_REPLY);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'keep answering on per-process limits while Redis is down, say so once and in readiness, and go back to it',
    async () => {
      // Its own Redis, since this test stops it.
      const ownRedis = await startRedisServer();
      try {
        const server = await startServer({ REDIS_URL: ownRedis.url, RATE_LIMIT_PER_MINUTE: '100' });
        await until(
          () => readiness(server),
          (r) => r.status === 200,
          'Redis',
        );
        expect(await readiness(server)).toEqual({ status: 200, redis: 'reachable' });
        expect(await statuses(() => chat(server))).toEqual([200]);

        await ownRedis.stop();
        expect(
          await until(
            () => readiness(server),
            (r) => r.status === 503,
            'readiness to fail',
          ),
        ).toEqual({
          status: 503,
          redis: 'unreachable',
        });
        const started = Date.now();
        expect(
          await statuses(
            () => chat(server),
            () => chat(server),
            () => chat(server),
          ),
        ).toEqual([200, 200, 200]);
        // No waiting on a Redis that is not there.
        expect(Date.now() - started).toBeLessThan(1_500);
        expect(server.output.filter((line) => line.includes('[redis] unreachable'))).toHaveLength(1);

        await ownRedis.start();
        await until(
          () => readiness(server),
          (r) => r.status === 200,
          'Redis to be back',
        );
        expect(await statuses(() => chat(server))).toEqual([200]);
        expect(server.output.some((line) => line.includes('[redis] reachable again'))).toBe(true);
        expect(server.output.filter((line) => line.includes('[redis] unreachable'))).toHaveLength(1);
      } finally {
        await ownRedis.stop();
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('a rolling restart', () => {
  it(
    'on SIGTERM takes no new connections, finishes a slow streamed reply, then exits 0',
    async () => {
      const server = await startServer({});
      provider.queue({ stream: ['one ', 'two ', 'three ', 'four'], pieceDelayMs: 300 });
      const response = await chat(server, { stream: true });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value);

      const exited = server.signal('SIGTERM');
      await until(
        async () => server.output.some((line) => line.includes('SIGTERM')),
        Boolean,
        'the server to take the signal',
      );
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }

      expect(text).toContain('"four"');
      expect(text).toContain('data: [DONE]');
      expect(await exited).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('client addresses', () => {
  it(
    'ignore X-Forwarded-For from a peer that is not a trusted proxy, and use it from one that is',
    async () => {
      await awayFromMinuteEdge();
      const [untrusted, trusted, unset] = await Promise.all([
        startServer({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '10.0.0.0/8' }),
        startServer({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' }),
        startServer({ RATE_LIMIT_PER_MINUTE: '2' }),
      ]);
      const spoofing = (server: ProductionServer) =>
        statuses(
          () => chat(server, { forwardedFor: '198.51.100.1' }),
          () => chat(server, { forwardedFor: '198.51.100.2' }),
          () => chat(server, { forwardedFor: '198.51.100.3' }),
        );

      // 127.0.0.1 is not in 10.0.0.0/8: a fresh forged address per request buys no fresh quota.
      expect(await spoofing(untrusted)).toEqual([200, 200, 429]);
      expect(await spoofing(trusted)).toEqual([200, 200, 200]);
      expect(await spoofing(unset)).toEqual([200, 200, 429]);
      const warnings = unset.output.filter((line) => line.includes('X-Forwarded-For but TRUST_PROXY'));
      expect(warnings).toHaveLength(1);
      expect(untrusted.output.join('\n')).not.toContain('X-Forwarded-For but TRUST_PROXY');
    },
    TEST_TIMEOUT_MS,
  );
});

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

describe('health and start-up', () => {
  it(
    'answers /healthz and /readyz without Redis, as the embedded default runs',
    async () => {
      const server = await startServer({});

      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(await readiness(server)).toEqual({ status: 200, redis: 'not used' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'serves a direct-mode build without a server token, allowing its provider and saying the token is in the page',
    async () => {
      const server = await startServer({}, 'direct');
      const page = await fetch(server.url);

      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain(`connect-src 'self' ${DIRECT_ORIGIN}`);
      expect(server.output.join('\n')).toMatch(/direct-mode build.*token.*every visitor can read it/);
      expect((await chat(server)).status).toBe(404);
    },
    TEST_TIMEOUT_MS,
  );

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
