// A server with the handoff and nothing else, as a process of its own: for the test that kills one between its 202
// and the delivery (server/handoff/handoff-crash.test.ts). Run from the test run's bundle (testing/server-build-setup.ts)
// or with `node --import tsx testing/handoff-process.ts '<json>'`, where the JSON gives the store and SMTP_URL; it
// prints `listening <url>` once it answers.
import { createApp } from '../server/app.ts';
import { createHandoff, type HandoffSettings } from '../server/handoff/handoff.ts';
import { listen } from '../server/listen.ts';

const { store, smtpUrl } = JSON.parse(process.argv[2] ?? '{}') as { store: HandoffSettings['store']; smtpUrl: string };
const log = (line: string) => console.log(line);
const handoff = createHandoff({
  to: { email: 'help@shop.example' },
  env: { smtpUrl, dailyLimit: 50, minSeconds: 0 },
  title: 'Shop',
  store,
  // Obviously fake, tests only.
  secret: async () => 'test-handoff-secret-0123456789abcdef',
  log,
  times: { firstRetryMs: 50, maxRetryMs: 100, giveUpMs: 60_000, pollMs: 50, leaseMs: 1_000 },
});
const app = createApp({
  upstream: { kind: 'demo' },
  timeoutMs: 5_000,
  rateLimitPerMinute: 0,
  trustProxyHops: 0,
  security: { frameAncestors: ["'self'"], connectSrc: [] },
  handoff,
  log,
});
const running = await listen(app, { port: 0, host: '127.0.0.1' });
console.log(`listening ${running.url}`);
