// The counts shared through a real `redis-server`, in this process: atomic reservations, and a Redis that stalls.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOKENS } from '../../contract/llm.ts';
import { awayFromMinuteEdge } from '../../testing/production-app.ts';
import { chatBody, parallelBurst, postChat, proxyHarness, until } from '../../testing/proxy-app.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { TEMPLATE_TOKENS } from '../chat/chat-request.ts';
import { REDIS_KEY_PREFIX, RedisCounters } from './counters.ts';

const { provider, start } = await proxyHarness();
let redis: RedisServer;
const opened: RedisCounters[] = [];
let database = 0;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  redis.resume();
  await Promise.all(opened.splice(0).map((counters) => counters.close()));
});
afterAll(async () => {
  await redis?.stop();
});

/**
 * Counters in a database of their own, ready. The command timeout is the production default (the bound under test is
 * one of them per request); the back-off is short, so that a stall is over in a test's time.
 */
async function redisCounters(logs: string[]) {
  database += 1;
  const url = `${redis.url}/${database}`;
  const counters = new RedisCounters(url, (line) => logs.push(line), { backoffMs: 1_000 });
  opened.push(counters);
  await until(() => counters.reachable, 'Redis to be reachable');
  return { counters, url };
}

/** What this server has counted in Redis, key by key (without the prefix and the window or the day). */
async function countsIn(url: string): Promise<Record<string, number>> {
  const reader = new Redis(url);
  try {
    const counts: Record<string, number> = {};
    for (const key of await reader.keys(`${REDIS_KEY_PREFIX}*`)) {
      const kind = key.slice(REDIS_KEY_PREFIX.length).split(':')[0];
      if (kind !== 'note') counts[kind] = (counts[kind] ?? 0) + Number(await reader.get(key));
    }
    return counts;
  } finally {
    reader.disconnect();
  }
}

async function timedChat(url: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await postChat(url, chatBody('hello there'));
  await response.text();
  return { status: response.status, ms: performance.now() - started };
}

describe('the daily token cap in Redis', () => {
  it('admits a parallel burst only as far as its reservations fit under the cap', async () => {
    const { counters } = await redisCounters([]);
    const cap = 2_000;
    const { url } = await start({ dailyTokenLimit: cap, counters });
    const { admitted, statuses } = await parallelBurst(url, provider, 20, 'hello there');

    expect(admitted).toBe(Math.floor(cap / (Buffer.byteLength('hello there') + TEMPLATE_TOKENS + MAX_TOKENS)));
    expect(admitted).toBeLessThanOrEqual(8);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - admitted);
  });
});

describe('a Redis that stalls', () => {
  it('costs a chat request at most one short timeout, counts nothing twice, and is ready again soon after', async () => {
    // Far above what a 2 s loop can send on a fast machine: only Redis's stall may refuse a request here.
    const limits = { rateLimitPerMinute: 1_000_000, dailyTokenLimit: 1_000_000_000 };
    // The same request without Redis, for comparison (after a first one, which pays for connections and warm-up).
    const alone = await start(limits);
    await timedChat(alone.url);
    let withoutRedis = 0;
    for (let i = 0; i < 3; i += 1) withoutRedis = Math.max(withoutRedis, (await timedChat(alone.url)).ms);

    // The counts compared before and after live in one minute's rate-limit window: the test must not straddle two.
    await awayFromMinuteEdge(15_000);
    const logs: string[] = [];
    const { counters, url: redisUrl } = await redisCounters(logs);
    const { url } = await start({ ...limits, counters });
    expect((await timedChat(url)).status).toBe(200);
    const before = await countsIn(redisUrl);
    // One request: one hit in the minute's window, and its 7 tokens (2 of prompt, 5 of reply) in the day's.
    expect(before).toEqual({ rate: 1, tokens: 7 });

    redis.pause();
    const stalledAt = performance.now();
    const during: { status: number; ms: number }[] = [];
    while (performance.now() - stalledAt < 2_000) during.push(await timedChat(url));
    redis.resume();
    const resumedAt = performance.now();
    await until(() => counters.reachable, '/readyz to follow Redis', 5_000);
    const readyAfter = performance.now() - resumedAt;
    const readyz = await fetch(`${url}/readyz`);

    expect(during.every(({ status }) => status === 200)).toBe(true);
    expect(Math.max(...during.map(({ ms }) => ms))).toBeLessThan(withoutRedis + 1_000);
    expect(readyz.status).toBe(200);
    expect(readyAfter).toBeLessThan(5_000);
    // What timed out ran late when Redis resumed, and was taken back: the stall was counted here, once.
    expect(await countsIn(redisUrl)).toEqual(before);
    expect(logs.filter((line) => line.includes('[redis] unreachable'))).toHaveLength(1);
    expect(logs.filter((line) => line.includes('[redis] reachable again'))).toHaveLength(1);
  }, 20_000);
});
