// The production server as `npm start` runs it, in a process of its own: signals, client addresses, health and a
// direct-mode build. Each test starts what it needs on 127.0.0.1 and stops it.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { awayFromMinuteEdge, type ProductionServer } from '../testing/production-app.ts';
import {
  chat,
  DIRECT_ORIGIN,
  productionHarness,
  readiness,
  statuses,
  TEST_TIMEOUT_MS,
  until,
} from '../testing/production-harness.ts';
import { freePort } from '../testing/redis-server.ts';

const { provider, startServer } = productionHarness('main', { direct: true });

describe('a rolling restart', () => {
  it(
    'on SIGTERM takes no new connections, finishes a slow streamed reply, then exits 0',
    async () => {
      const server = await startServer({});
      provider().queue({ stream: ['one ', 'two ', 'three ', 'four'], pieceDelayMs: 300 });
      const response = await chat(server, { stream: true });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value);

      const exited = server.signal('SIGTERM');
      await until(
        async () => server.output.some((line) => line.includes('SIGTERM')),
        Boolean,
        'the server to take the signal',
      );
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }

      expect(text).toContain('"four"');
      expect(text).toContain('data: [DONE]');
      expect(await exited).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('a supervisor running `npm start`', () => {
  for (const name of ['SIGTERM', 'SIGINT'] as const) {
    it(
      `stops the server with ${name} sent to npm, leaving no process and the port free`,
      async () => {
        const npm = await startServer({}, 'npm');
        const port = Number(new URL(npm.url).port);
        // npm's child: the start script's shell, which `exec` made the server itself.
        const serverPid = Number(readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8').trim());
        expect((await fetch(`${npm.url}/healthz`)).status).toBe(200);

        expect(await npm.signal(name)).toBe(0);

        expect(npm.output.join('\n')).toContain(`[server] ${name}: finishing the replies in flight`);
        // The last word is that it has stopped: a supervisor's log ends with it, not mid-sentence.
        expect(npm.output.at(-1)).toBe(`[server] stopped after ${name}`);
        expect(() => process.kill(serverPid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
        const again = createServer();
        await new Promise<void>((resolve, reject) => {
          again.once('error', reject);
          again.listen(port, '127.0.0.1', resolve);
        });
        await new Promise((resolve) => again.close(resolve));
      },
      TEST_TIMEOUT_MS,
    );
  }
});

describe('client addresses', () => {
  it(
    'ignore X-Forwarded-For from a peer that is not a trusted proxy, and use it from one that is',
    async () => {
      await awayFromMinuteEdge();
      const [untrusted, trusted, unset] = await Promise.all([
        startServer({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '10.0.0.0/8' }),
        startServer({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' }),
        startServer({ RATE_LIMIT_PER_MINUTE: '2' }),
      ]);
      const spoofing = (server: ProductionServer) =>
        statuses(
          () => chat(server, { forwardedFor: '198.51.100.1' }),
          () => chat(server, { forwardedFor: '198.51.100.2' }),
          () => chat(server, { forwardedFor: '198.51.100.3' }),
        );

      // 127.0.0.1 is not in 10.0.0.0/8: a fresh forged address per request buys no fresh quota.
      expect(await spoofing(untrusted)).toEqual([200, 200, 429]);
      expect(await spoofing(trusted)).toEqual([200, 200, 200]);
      expect(await spoofing(unset)).toEqual([200, 200, 429]);
      const warnings = unset.output.filter((line) => line.includes('X-Forwarded-For but TRUST_PROXY'));
      expect(warnings).toHaveLength(1);
      expect(untrusted.output.join('\n')).not.toContain('X-Forwarded-For but TRUST_PROXY');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('health and start-up', () => {
  it(
    'says in one line what is in use: port, base path, Redis without its password, knowledge, metrics',
    async () => {
      const server = await startServer({
        BASE_PATH: '/assistant',
        // Nothing listens on port 1: Redis stays unreachable, which the chat survives; the line is what is checked.
        REDIS_URL: 'redis://default:not-a-real-password@127.0.0.1:1/0',
        METRICS_PORT: String(await freePort()),
      });
      const started = server.output.filter((line) => line.includes('AI Assistant on'));

      expect(started).toHaveLength(1);
      expect(started[0]).toMatch(
        /^\[server\] AI Assistant on http:\/\/127\.0\.0\.1:\d+\/assistant\/: .+; base path \/assistant; Redis redis:\/\/\*\*\*@127\.0\.0\.1:1\/0; no knowledge sources; metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/,
      );
      expect(server.output.join('\n')).not.toContain('not-a-real-password');
      expect(server.output.filter((line) => line.includes('metrics on'))).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers /healthz and /readyz without Redis, as the embedded default runs',
    async () => {
      const server = await startServer({});

      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(await readiness(server)).toEqual({ status: 200, redis: 'not used' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses a BASE_PATH that is not a clean path, in one line that names it',
    async () => {
      const starting = startServer({ BASE_PATH: '/assistant/' });

      await expect(starting).rejects.toThrow(
        /exited \(code 1\) before listening:\n\[server\] Invalid server configuration: BASE_PATH must be a clean path such as \/assistant: .*\(got "\/assistant\/"\)$/,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'names a misspelt setting at start-up, with the setting it was likely meant to be',
    async () => {
      const server = await startServer({ FRAME_ANCESTOR: "'self'", LLM_TIMEOUT_MS: '30000' });

      expect(server.output).toContain(
        '[server] FRAME_ANCESTOR is not a setting of AI Assistant and is ignored: did you mean FRAME_ANCESTORS?',
      );
      expect(server.output.join('\n')).toContain("LLM_TIMEOUT_MS (30000 ms) is not below the page's");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'serves a direct-mode build without a server token, allowing its provider and saying the token is in the page',
    async () => {
      const server = await startServer({}, 'direct');
      const page = await fetch(server.url);

      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain(`connect-src 'self' ${DIRECT_ORIGIN}`);
      expect(server.output.join('\n')).toMatch(/direct-mode build.*token.*every visitor can read it/);
      expect((await chat(server)).status).toBe(404);
    },
    TEST_TIMEOUT_MS,
  );
});
