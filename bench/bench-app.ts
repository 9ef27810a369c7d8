// The app as the benches run it in their own process: the production handler on a free port of 127.0.0.1, a provider
// at `baseURL` with a fake token, no rate limit (one address sends everything) and no log; `extra` adds the parts a
// bench measures (knowledge, the owner's loop).
import { createApp } from '../server/app.ts';
import type { ProxyOptions } from '../server/hono-env.ts';
import { listen } from '../server/listen.ts';

export function listenBenchApp(baseURL: string, extra: Partial<ProxyOptions> = {}) {
  const app = createApp({
    upstream: { kind: 'provider', baseURL, apiKey: 'bench-fake-token', model: 'bench-model' },
    timeoutMs: 10_000,
    rateLimitPerMinute: 0,
    trustProxyHops: 0,
    security: { frameAncestors: ["'self'"], connectSrc: [] },
    log: () => {},
    ...extra,
  });
  return listen(app, { port: 0, host: '127.0.0.1' });
}
