// The owner's loop with REDIS_URL when Redis fails or is raced: a real redis-server on a loopback port.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STATS_PATH } from '../../contract/owner.ts';
import { awayFromMinuteEdge } from '../../testing/production-app.ts';
import { chatBody, postChat, proxyHarness, until } from '../../testing/proxy-app.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { RedisCounters } from '../limits/counters.ts';
import { createFeedback, type Feedback } from './feedback.ts';
import { RedisCountStore } from './redis-count-store.ts';

const { provider, start } = await proxyHarness();
// Obviously fake: tests only.
const OWNER_TOKEN = 'test-owner-token-a1b2c3d4e5f60718';
let redis: RedisServer;
const feedbacks: Feedback[] = [];
const counters: RedisCounters[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis.stop());
afterEach(async () => {
  await Promise.all(feedbacks.splice(0).map((feedback) => feedback.close()));
  await Promise.all(counters.splice(0).map((counter) => counter.close()));
});

/** A server whose counts, vote secret and limits are in Redis database `db`, with no FEEDBACK_SECRET; its log. */
async function serverOn(db: number, commandTimeoutMs?: number) {
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  // One connection for the limits and the counts, as the server's parts share it (server-parts.ts).
  const shared = new RedisCounters(`${redis.url}/${db}`, log, { commandTimeoutMs });
  counters.push(shared);
  const feedback = createFeedback({ store: new RedisCountStore(shared.connection), log });
  feedbacks.push(feedback);
  const server = await start({ feedback, counters: shared, ownerToken: OWNER_TOKEN, log });
  return { url: server.url, logs };
}

describe('Redis down at start, with no FEEDBACK_SECRET', () => {
  it('takes no chat down: replies go without a vote token until the secret can be read', async () => {
    await redis.stop();
    try {
      const { url, logs } = await serverOn(3);
      for (const stream of [false, true]) {
        const response = await postChat(url, chatBody('Do you repair tubeless tyres?', stream ? { stream } : {}));
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text).toContain('"content"');
        expect(text).not.toContain('"reply"');
      }
      expect(provider.requests).toHaveLength(2);
      expect(logs.filter((line) => line.includes('no vote token'))).toHaveLength(1);

      await redis.start();
      let reply: string | undefined;
      for (let attempt = 0; reply === undefined && attempt < 50; attempt++) {
        const response = await postChat(url, chatBody('And tubes?'));
        reply = ((await response.json()) as { reply?: string }).reply;
        if (reply === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(reply).toMatch(/^[\w-]+\.[\w-]+$/);
      expect(logs).toContain('[feedback] replies carry vote tokens again');
    } finally {
      await redis.start().catch(() => undefined);
    }
  }, 30_000);
});

describe('wrong owner tokens with REDIS_URL', () => {
  it('are compared at most 5 a minute, even sent all at once', async () => {
    // Redis answering late must not count as Redis down here: that is another test's.
    const { url } = await serverOn(4, 10_000);
    // Through Redis, not the counts of this process that stand in while it connects; all in one minute.
    await until(() => counters[0].reachable, 'Redis to be reachable', 10_000);
    await awayFromMinuteEdge();
    const wrong = { headers: { authorization: 'Bearer test-owner-token-guess-000000000' } };
    // Redis holds its answers for a moment (a busy Redis, a slow network), so that the burst is all in flight at once.
    redis.pause();
    const answers = Array.from({ length: 200 }, () => fetch(url + STATS_PATH, wrong).then((r) => r.status));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    redis.resume();
    const statuses = await Promise.all(answers);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(195);
  });
});
