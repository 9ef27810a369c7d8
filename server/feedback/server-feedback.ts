import type { Knowledge } from '../knowledge-sync/knowledge-sync.ts';
import type { Metrics } from '../metrics.ts';
import type { ServerConfig } from '../settings/env.ts';
import { FileCountStore } from './count-store.ts';
import { createFeedback, type Feedback } from './feedback.ts';
import { RedisCountStore } from './redis-count-store.ts';

/**
 * The owner's loop as the server's settings ask for it, the same for `npm start`, `vite preview` and `npm run dev`:
 * the counts in Redis for replicas, else in the data folder; a vote's pages looked up among the site's `knowledge`. `undefined` for a direct-mode build, which gives no reply
 * to vote on.
 */
export function serverFeedback(
  config: ServerConfig,
  log: (line: string) => void,
  metrics?: Metrics,
  knowledge?: Pick<Knowledge, 'pages'>,
): Feedback | undefined {
  if (config.proxy.upstream.kind === 'none') return undefined;
  return createFeedback({
    store: config.redisUrl ? new RedisCountStore(config.redisUrl) : new FileCountStore(config.dataDir, log),
    secret: config.feedbackSecret,
    metrics,
    log,
    ...(knowledge ? { pages: () => knowledge.pages() } : {}),
  });
}
