import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_KEY_PREFIX } from '../limits/counters.ts';
import { type CountStore, type DayCounts, KEEP_DAYS } from './count-store.ts';

const DAY_SECONDS = 86_400;

/**
 * The counts in Redis, shared by every replica with the same `REDIS_URL`: a hash per UTC day (expiring after
 * `KEEP_DAYS`), a key per reply vote still open to a change (expiring with its token), and the token secret.
 * A Redis that cannot be reached loses the counts meanwhile, never a chat: callers do not wait on a queue.
 */
export class RedisCountStore implements CountStore {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, {
      enableOfflineQueue: true,
      maxRetriesPerRequest: 1,
      commandTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      keyPrefix: `${REDIS_KEY_PREFIX}feedback:`,
    });
    // The chat's own Redis connection logs the outages; this one stays quiet.
    this.redis.on('error', () => undefined);
  }

  async add(day: string, fields: DayCounts): Promise<void> {
    const key = `day:${day}`;
    const batch = this.redis.multi();
    for (const [field, amount] of Object.entries(fields)) batch.hincrby(key, field, amount);
    batch.expire(key, KEEP_DAYS * DAY_SECONDS);
    await batch.exec();
  }

  async swapVote(id: string, vote: string, expiresAt: number): Promise<string | undefined> {
    const previous = await this.redis.set(`vote:${id}`, vote, 'PXAT', expiresAt, 'GET');
    return previous ?? undefined;
  }

  async read(days: readonly string[]): Promise<Record<string, DayCounts>> {
    const batch = this.redis.pipeline();
    for (const day of days) batch.hgetall(`day:${day}`);
    const answers = (await batch.exec()) ?? [];
    const result: Record<string, DayCounts> = {};
    answers.forEach(([error, hash], index) => {
      if (error) throw error;
      const entries = Object.entries(hash as Record<string, string>);
      if (entries.length > 0) result[days[index]] = Object.fromEntries(entries.map(([f, n]) => [f, Number(n)]));
    });
    return result;
  }

  async secret(): Promise<string> {
    await this.redis.set('secret', randomBytes(32).toString('base64url'), 'NX');
    const secret = await this.redis.get('secret');
    if (!secret) throw new Error('Redis lost the feedback secret as it was made');
    return secret;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
