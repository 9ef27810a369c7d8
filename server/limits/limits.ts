// The limits room's one entry: the rate limit, the daily token cap, the counters in memory or Redis, body size.
export { DEFAULT_MAX_BODY_BYTES, limitBody } from './body-limit.ts';
export { trustedProxyList } from './client-key.ts';
export { type Counters, MemoryCounters, RedisCounters } from './counters.ts';
export { clientKeyOf, type LimitOptions, rateLimit } from './rate-limit.ts';
export { capRefusal, type Reservation, readUsage, SpendCap, type TokenUsage } from './spend-cap.ts';
