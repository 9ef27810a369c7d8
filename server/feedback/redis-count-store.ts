import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type CountStore, type DayCounts, KEEP_DAYS } from './count-store.ts';

const DAY_SECONDS = 86_400;

/** How long a command waits for a connection that is still being made, as a queued command would. */
const CONNECT_WAIT_MS = 1_000;
/** Under the connection's own prefix (`REDIS_KEY_PREFIX`): the owner's keys apart from the limits'. */
const PREFIX = 'feedback:';

/**
 * The counts in Redis, shared by every replica with the same `REDIS_URL`: a hash per UTC day (expiring after
 * `KEEP_DAYS`), a key per reply vote still open to a change (expiring with its token), and the token secret.
 * It borrows the server's one connection (the limits', which logs its outages and is closed by its owner).
 * A Redis that cannot be reached loses the counts meanwhile, never a chat: callers do not wait on a queue.
 */
export class RedisCountStore implements CountStore {
  constructor(private readonly connection: Redis) {}

  /** The connection, once it is ready: the first vote or token of a starting server waits for it, briefly. */
  private async ready(): Promise<Redis> {
    const redis = this.connection;
    if (redis.status === 'ready') return redis;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(() => {
        redis.off('ready', done);
        reject(new Error('Redis is not connected'));
      }, CONNECT_WAIT_MS);
      redis.once('ready', done);
    });
    return redis;
  }

  async add(day: string, fields: DayCounts): Promise<void> {
    const key = `${PREFIX}day:${day}`;
    const batch = (await this.ready()).multi();
    for (const [field, amount] of Object.entries(fields)) batch.hincrby(key, field, amount);
    batch.expire(key, KEEP_DAYS * DAY_SECONDS);
    await batch.exec();
  }

  async swapVote(id: string, vote: string, expiresAt: number): Promise<string | undefined> {
    const previous = await (await this.ready()).set(`${PREFIX}vote:${id}`, vote, 'PXAT', expiresAt, 'GET');
    return previous ?? undefined;
  }

  async read(days: readonly string[]): Promise<Record<string, DayCounts>> {
    const batch = (await this.ready()).pipeline();
    for (const day of days) batch.hgetall(`${PREFIX}day:${day}`);
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
    const redis = await this.ready();
    await redis.set(`${PREFIX}secret`, randomBytes(32).toString('base64url'), 'NX');
    const secret = await redis.get(`${PREFIX}secret`);
    if (!secret) throw new Error('Redis lost the feedback secret as it was made');
    return secret;
  }

  /** Nothing of its own to close: the connection's owner ends it. */
  async close(): Promise<void> {}
}
