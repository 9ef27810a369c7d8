import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * Counts that expire: rate-limit hits per client per window, tokens spent per day. One interface for the in-memory
 * counts of a single process and the Redis counts that replicas share.
 */
export interface Counters {
  /**
   * Adds `amount` to `key`, whose count lives until `resetAt` (ms since the epoch), in one atomic step; returns the new
   * count. With `limit`, an `amount` that would take the count past it is not added, and the answer is `undefined`.
   */
  add(key: string, amount: number, resetAt: number, limit?: number): Promise<number | undefined>;
}

/** How often expired entries are swept, so that a stream of one-off clients cannot grow the map without end. */
const SWEEP_EVERY_MS = 60_000;

/** The counts of this process alone: the default, and the fallback while Redis is unreachable. */
export class MemoryCounters implements Counters {
  private readonly entries = new Map<string, { count: number; resetAt: number }>();
  private nextSweep = Date.now() + SWEEP_EVERY_MS;

  async add(key: string, amount: number, resetAt: number, limit?: number): Promise<number | undefined> {
    const now = Date.now();
    if (now >= this.nextSweep) this.sweep(now);
    let entry = this.entries.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt };
      this.entries.set(key, entry);
    }
    if (limit !== undefined && amount > 0 && entry.count + amount > limit) return undefined;
    entry.count += amount;
    return entry.count;
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
 * `add` as one script, so that the check against the limit and the addition are one atomic step in one round trip.
 * It also leaves a short-lived note of what it added under the call's own id (KEYS[2]), for `UNDO_SCRIPT`.
 * KEYS: the count, the note. ARGV: amount, limit (-1: none), resetAt, the note's lifetime in ms.
 */
const ADD_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if limit >= 0 and amount > 0 and count + amount > limit then return false end
count = redis.call('INCRBY', KEYS[1], amount)
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], amount, 'PX', ARGV[4])
return count`;

/**
 * Takes back what the call with note KEYS[2] added to KEYS[1], if it ran at all and its count still lives: a call that
 * ran late, after its window's end, found its count already expired, and a DECRBY would make a new count without one.
 */
const UNDO_SCRIPT = `
local amount = redis.call('GET', KEYS[2])
if amount then
  redis.call('DEL', KEYS[2])
  if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECRBY', KEYS[1], amount) end
end
return 0`;

/** How long a note lives: enough for an undo sent right behind its call on the same connection. */
const NOTE_MS = 10_000;

type ScriptedRedis = Redis & {
  addCount(
    count: string,
    note: string,
    amount: number,
    limit: number,
    resetAt: number,
    noteMs: number,
  ): Promise<number>;
  undoCount(count: string, note: string): Promise<number>;
};

export interface RedisCountersOptions {
  /** How long one command may take before it counts as failed and the local counts answer instead. */
  commandTimeoutMs?: number;
  /** After a failure, how long the local counts answer without asking Redis, and how often Redis is probed. */
  backoffMs?: number;
}

/**
 * Counts kept in Redis, shared by every replica pointed at the same `REDIS_URL`, that fall back to this process's own
 * counts whenever Redis cannot answer: Redis must never take the chat down. After a failed or timed-out command a
 * circuit breaker keeps to the local counts for `backoffMs` (so a stall costs a request one timeout, not one per
 * command), and a probe then asks Redis again; any command that succeeds makes Redis the shared count again. Each
 * change of state is logged once.
 *
 * A command that timed out was sent: a stalled Redis runs it when it resumes. It was counted locally meanwhile, so
 * an undo follows it on the same connection and takes back what it added when it runs late: a stall counts like an
 * outage, once, in this process.
 */
export class RedisCounters implements Counters {
  private readonly redis: ScriptedRedis;
  private readonly local = new MemoryCounters();
  private readonly backoffMs: number;
  private down = false;
  private openUntil = 0;
  private probe: ReturnType<typeof setTimeout> | undefined;
  private closing = false;

  constructor(
    url: string,
    private readonly log: (line: string) => void,
    { commandTimeoutMs = 500, backoffMs = 5_000 }: RedisCountersOptions = {},
  ) {
    this.backoffMs = backoffMs;
    this.redis = new Redis(url, {
      // A command issued while disconnected fails at once (and is counted locally) rather than waiting in a queue.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // What was counted locally after a lost connection must not be sent again on the next one.
      autoResendUnfulfilledCommands: false,
      // A Redis that accepts connections but does not answer must not hold up chat requests either.
      commandTimeout: commandTimeoutMs,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      keyPrefix: REDIS_KEY_PREFIX,
    }) as ScriptedRedis;
    this.redis.defineCommand('addCount', { numberOfKeys: 2, lua: ADD_SCRIPT });
    this.redis.defineCommand('undoCount', { numberOfKeys: 2, lua: UNDO_SCRIPT });
    this.redis.on('ready', () => this.markUp());
    // Without a listener ioredis would print every failed reconnection attempt.
    this.redis.on('error', (error: Error) => this.markDown(error));
    this.redis.on('close', () => this.markDown());
  }

  /** The one connection to Redis, lent to the owner's counts (server/server-parts.ts); `close()` ends it. */
  get connection(): Redis {
    return this.redis;
  }

  /** Whether Redis is connected and answering (what `/readyz` reports). */
  get reachable(): boolean {
    return this.redis.status === 'ready' && !this.down;
  }

  async add(key: string, amount: number, resetAt: number, limit?: number): Promise<number | undefined> {
    if (this.redis.status !== 'ready' || Date.now() < this.openUntil) {
      return this.local.add(key, amount, resetAt, limit);
    }
    const note = `note:${randomUUID()}`;
    try {
      const count = await this.redis.addCount(key, note, amount, limit ?? -1, resetAt, NOTE_MS);
      this.markUp();
      // A refusal is Lua's `false`, which Redis answers as nil.
      return count ?? undefined;
    } catch (error) {
      // Not awaited: it waits behind the late call, and nobody needs its answer.
      this.redis.undoCount(key, note).catch(() => undefined);
      this.trip(error as Error);
      return this.local.add(key, amount, resetAt, limit);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.probe);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Opens the breaker: local counts only, until a probe (or the next command after the back-off) gets an answer. */
  private trip(error: Error): void {
    this.openUntil = Date.now() + this.backoffMs;
    this.markDown(error);
    if (this.probe || this.closing) return;
    this.probe = setTimeout(() => {
      this.probe = undefined;
      this.redis.ping().then(
        () => this.markUp(),
        (failure: Error) => this.trip(failure),
      );
    }, this.backoffMs);
    // A probe must not keep a stopping process alive.
    this.probe.unref();
  }

  private markUp(): void {
    this.openUntil = 0;
    if (!this.down) return;
    this.down = false;
    this.log('[redis] reachable again: limits and the spend cap are shared through Redis again');
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
