import { afterAll, afterEach } from 'vitest';
import { CHAT_COMPLETIONS_PATH, MAX_TOKENS } from '../contract/llm.ts';
import { createApp } from '../server/app.ts';
import type { AppOptions } from '../server/app-options.ts';
import { listen, type RunningServer } from '../server/listen.ts';
import { FAKE_REPLY, type FakeProvider, startFakeProvider } from './fake-provider.ts';

// Deliberately unlike any provider's token format, so it cannot be mistaken for a real one.
export const TOKEN = 'test-upstream-token-3f9c2a';
export const PINNED_MODEL = 'pinned/instruct-7b';
export const SECRET_TEXT = 'my very private question';

/**
 * For a test file of the server's own: one fake provider for the file, and `start()` for an app in front of it on a
 * loopback port (stopped, and the provider reset, after each test). Call it once, at the top of the file.
 */
export async function proxyHarness() {
  const provider = await startFakeProvider();
  const servers: RunningServer[] = [];
  afterAll(async () => {
    await provider.close();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    provider.respondWith({ content: FAKE_REPLY });
    provider.requests.length = 0;
  });

  async function start(overrides: Partial<AppOptions> = {}) {
    const logs: string[] = [];
    const app = createApp({
      upstream: { kind: 'provider', baseURL: provider.baseURL, apiKey: TOKEN, model: PINNED_MODEL },
      timeoutMs: 5_000,
      rateLimitPerMinute: 0,
      trustProxyHops: 0,
      security: { frameAncestors: ["'self'"], connectSrc: [] },
      log: (line) => logs.push(line),
      ...overrides,
    });
    const server = await listen(app, { port: 0, host: '127.0.0.1' });
    servers.push(server);
    return { url: server.url, logs };
  }
  return { provider, start };
}

/** An upstream `baseURL` for a provider written by the test itself on this port. */
export const providerOn = (port: number): AppOptions['upstream'] => ({
  kind: 'provider',
  baseURL: `http://127.0.0.1:${port}/v1`,
  apiKey: TOKEN,
  model: PINNED_MODEL,
});

export const chatBody = (content = SECRET_TEXT, extra: Record<string, unknown> = {}) => ({
  model: 'Qwen/Qwen2.5-7B-Instruct',
  messages: [{ role: 'user', content }],
  max_tokens: MAX_TOKENS,
  temperature: 0.7,
  ...extra,
});

export function postChat(url: string, body: unknown, init: RequestInit & { headers?: Record<string, string> } = {}) {
  return fetch(url + CHAT_COMPLETIONS_PATH, {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', authorization: 'Bearer same-origin-proxy', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function until(condition: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Sends `count` chat requests at once while `provider` holds every one that reaches it, so that all of them are in
 * flight together; once each is admitted (held) or refused (answered), lets the held ones finish. Returns how many
 * reached the provider, and every status.
 */
export async function parallelBurst(url: string, provider: FakeProvider, count: number, text: string) {
  provider.respondWith({ hold: true });
  const answers = Array.from({ length: count }, () => postChat(url, chatBody(text)));
  const statuses: number[] = [];
  for (const answer of answers) void answer.then((response) => statuses.push(response.status));
  await until(() => statuses.length + provider.heldCount === count, 'every request to be admitted or refused');
  const admitted = provider.heldCount;
  while (provider.heldCount > 0) provider.release({ content: 'ok' });
  await Promise.all(answers);
  return { admitted, statuses };
}
