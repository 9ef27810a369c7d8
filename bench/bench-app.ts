// The app as the benches run it in their own process: the production handler on a free port of 127.0.0.1, a provider
// at `baseURL` with a fake token, no rate limit (one address sends everything) and no log; `extra` adds the parts a
// bench measures (knowledge, the owner's loop).
import { MAX_TOKENS, TEMPERATURE } from '../contract/llm.ts';
import { createApp } from '../server/app.ts';
import type { AppOptions } from '../server/app-options.ts';
import { listen } from '../server/listen.ts';
import { spawnScript } from './cannon-run.ts';

/** A hosted model's pace for a short reply (time to first token, then 50 tokens a second): judged by the targets. */
export const MODEL_PACE = { delayMs: 300, pieceDelayMs: 20 };

/** The fake upstream at the model's pace, in a process of its own; its output is its base URL. */
export const modelUpstream = () =>
  spawnScript('bench/fake-upstream.ts', [String(MODEL_PACE.delayMs), String(MODEL_PACE.pieceDelayMs)]);

/** A visitor's chat request asking `content`, as the page sends it. */
export const chatBody = (content: string) =>
  JSON.stringify({
    model: 'bench-model',
    messages: [{ role: 'user', content }],
    max_tokens: MAX_TOKENS,
    temperature: TEMPERATURE,
  });

export function listenBenchApp(baseURL: string, extra: Partial<AppOptions> = {}) {
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
