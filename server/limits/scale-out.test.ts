// Replicas of the production server as operators run them, sharing a real Redis: each test starts what it needs on
// 127.0.0.1 and stops it.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOKENS } from '../../contract/llm.ts';
import { FAKE_REPLY } from '../../testing/fake-provider.ts';
import { awayFromMinuteEdge, type ProductionServer } from '../../testing/production-app.ts';
import {
  chat,
  PROMPT,
  productionHarness,
  readiness,
  statuses,
  TEST_TIMEOUT_MS,
  TOKENS_PER_EXCHANGE,
  until,
} from '../../testing/production-harness.ts';
import { freePort, type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { TEMPLATE_TOKENS } from '../chat/chat-request.ts';
import { REDIS_KEY_PREFIX } from './counters.ts';
import { nextUtcMidnight } from './spend-cap.ts';

/** What each chat request reserves before it is forwarded (see `reservationFor`). */
const RESERVATION = Buffer.byteLength(PROMPT) + TEMPLATE_TOKENS + MAX_TOKENS;

const { provider, startServer } = productionHarness('scale-out');
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

/** Waits until each replica says it is ready (its Redis reachable). */
async function allReady(...servers: ProductionServer[]): Promise<void> {
  await Promise.all(
    servers.map((server) =>
      until(
        () => readiness(server),
        (r) => r.status === 200,
        'Redis',
      ),
    ),
  );
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
      await allReady(a, b);
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
      expect(provider().requests).toHaveLength(4);

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
      // Room for two exchanges and the reservation of a third; the fourth's reservation would pass the cap.
      const cap = 3 * TOKENS_PER_EXCHANGE - 1 + RESERVATION;
      const env = { REDIS_URL: `${redis.url}/2`, LLM_DAILY_TOKEN_LIMIT: String(cap) };
      const [a, b] = await Promise.all([startServer(env), startServer(env)]);
      await allReady(a, b);

      expect((await chat(a)).status).toBe(200);
      const streamed = await chat(b, { stream: true });
      const streamedText = await streamed.text();
      // The stream's last piece reaches the page before its replica settles the reservation in Redis: the next
      // request waits for that (on a busy machine it came first, and found the stream's whole reservation still held).
      const spent = new Redis(`${redis.url}/2`);
      const day = `${REDIS_KEY_PREFIX}tokens:${new Date().toISOString().slice(0, 10)}`;
      await expect.poll(async () => Number(await spent.get(day)), { timeout: 10_000 }).toBe(2 * TOKENS_PER_EXCHANGE);
      spent.disconnect();
      expect(await statuses(() => chat(a))).toEqual([200]);
      const refusedB = await chat(b);
      const refusedA = await chat(a, { stream: true });

      // The stream asked the provider for its usage, and the page got the reply without that chunk.
      expect(provider().requests[1].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      expect(streamedText).toContain('"fake "');
      expect(streamedText).toContain('data: [DONE]');
      expect(streamedText).not.toContain('usage');

      expect([refusedA.status, refusedB.status]).toEqual([429, 429]);
      expect((await refusedB.json()).error.code).toBe('daily_token_limit');
      const toMidnight = (nextUtcMidnight() - Date.now()) / 1000;
      expect(Number(refusedB.headers.get('retry-after'))).toBeGreaterThan(toMidnight - 5);
      expect(Number(refusedB.headers.get('retry-after'))).toBeLessThanOrEqual(Math.ceil(toMidnight) + 1);
      expect(provider().requests).toHaveLength(3);
      // Totals, never texts.
      const logs = [...a.output, ...b.output].join('\n');
      expect(logs).toContain(`today=${3 * TOKENS_PER_EXCHANGE}/${cap}`);
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
        await allReady(server);
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
