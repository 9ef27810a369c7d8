import { Redis } from 'ioredis';

/**
 * Counts that expire: rate-limit hits per client per window, tokens spent per day. One interface for the in-memory
 * counts of a single process and the Redis counts that replicas share.
 */
export interface Counters {
  /** Adds `amount` to `key`, whose count lives until `resetAt` (ms since the epoch); returns the new count. */
  add(key: string, amount: number, resetAt: number): Promise<number>;
  /** The count of `key` so far (0 when it has none or it has expired). */
  get(key: string): Promise<number>;
}

/** How often expired entries are swept, so that a stream of one-off clients cannot grow the map without end. */
const SWEEP_EVERY_MS = 60_000;

/** The counts of this process alone: the default, and the fallback while Redis is unreachable. */
export class MemoryCounters implements Counters {
  private readonly entries = new Map<string, { count: number; resetAt: number }>();
  private nextSweep = Date.now() + SWEEP_EVERY_MS;

  async add(key: string, amount: number, resetAt: number): Promise<number> {
    const now = Date.now();
    if (now >= this.nextSweep) this.sweep(now);
    const entry = this.entries.get(key);
    if (entry && entry.resetAt > now) {
      entry.count += amount;
      return entry.count;
    }
    this.entries.set(key, { count: amount, resetAt });
    return amount;
  }

  async get(key: string): Promise<number> {
    const entry = this.entries.get(key);
    return entry && entry.resetAt > Date.now() ? entry.count : 0;
  }

  /** How many keys are held (for tests of the sweep). */
  get size(): number {
    return this.entries.size;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.resetAt <= now) this.entries.delete(key);
    this.nextSweep = now + SWEEP_EVERY_MS;
  }
}

/** Every key this server writes in Redis starts with this, so it can share a Redis with other applications. */
export const REDIS_KEY_PREFIX = 'ai-assistant:';

/**
 * Counts kept in Redis, shared by every replica pointed at the same `REDIS_URL`, that fall back to this process's own
 * counts whenever Redis cannot answer: Redis must never take the chat down. ioredis keeps reconnecting in the
 * background; once it is connected again the shared counts are used again. Each change of state is logged once.
 */
export class RedisCounters implements Counters {
  private readonly redis: Redis;
  private readonly local = new MemoryCounters();
  private down = false;
  private closing = false;

  constructor(
    url: string,
    private readonly log: (line: string) => void,
  ) {
    this.redis = new Redis(url, {
      // A command issued while disconnected fails at once (and is counted locally) rather than waiting in a queue.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A Redis that accepts connections but does not answer must not hold up chat requests either.
      commandTimeout: 500,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      keyPrefix: REDIS_KEY_PREFIX,
    });
    this.redis.on('ready', () => {
      if (this.down) this.log('[redis] reachable again: limits and the spend cap are shared through Redis again');
      this.down = false;
    });
    // Without a listener ioredis would print every failed reconnection attempt.
    this.redis.on('error', (error: Error) => this.markDown(error));
    this.redis.on('close', () => this.markDown());
  }

  /** Whether Redis is connected and answering (what `/readyz` reports). */
  get reachable(): boolean {
    return this.redis.status === 'ready' && !this.down;
  }

  async add(key: string, amount: number, resetAt: number): Promise<number> {
    if (this.redis.status !== 'ready') return this.local.add(key, amount, resetAt);
    try {
      // The expiry is the same for every add to one key (its window's end), so setting it each time is harmless and
      // saves a round trip to ask whether it is set.
      const results = await this.redis.multi().incrby(key, amount).pexpireat(key, resetAt).exec();
      const [error, count] = results?.[0] ?? [new Error('no reply')];
      if (error) throw error;
      return Number(count);
    } catch (error) {
      this.markDown(error as Error);
      return this.local.add(key, amount, resetAt);
    }
  }

  async get(key: string): Promise<number> {
    if (this.redis.status !== 'ready') return this.local.get(key);
    try {
      return Number((await this.redis.get(key)) ?? 0);
    } catch (error) {
      this.markDown(error as Error);
      return this.local.get(key);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private markDown(error?: Error): void {
    if (this.down || this.closing) return;
    this.down = true;
    // The URL may hold a password: only the error's kind is logged.
    const reason = error ? ` (${(error as NodeJS.ErrnoException).code ?? error.name})` : '';
    this.log(
      `[redis] unreachable${reason}: limits and the spend cap are counted per process until it is back; /readyz says so`,
    );
  }
}
