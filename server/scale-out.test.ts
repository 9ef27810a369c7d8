// @vitest-environment node
// The production server as operators run it: several processes, a real Redis, signals, metrics. Each test starts
// what it needs on 127.0.0.1 and stops it.
import { rm } from 'node:fs/promises';
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
});
