import { createHmac } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Stats } from '../../contract/feedback.ts';
import { HANDOFF_PATH, HONEYPOT_FIELD, MAX_HANDOFF_MESSAGE } from '../../contract/handoff.ts';
import { STATS_PATH } from '../../contract/owner.ts';
import { type PostgresServer, startPostgresServer } from '../../testing/postgres-server.ts';
import { until } from '../../testing/production-harness.ts';
import { proxyHarness } from '../../testing/proxy-app.ts';
import { startRedisServer } from '../../testing/redis-server.ts';
import { type SmtpServer, smtpServer } from '../../testing/smtp-server.ts';
import type { AppOptions } from '../app-options.ts';
import { FileCountStore } from '../feedback/count-store.ts';
import { createFeedback } from '../feedback/feedback.ts';
import { RedisCounters } from '../limits/counters.ts';
import { FORM_TOKEN_LIFETIME_MS, formTokens } from './form-token.ts';
import { createHandoff, type Handoff, type HandoffCount, type HandoffSettings, serverHandoff } from './handoff.ts';

/** The delivery's clock in tests: retries within a tenth of a second, a message given up after `giveUpMs`. */
const FAST = { firstRetryMs: 50, maxRetryMs: 100, giveUpMs: 60_000, pollMs: 50, leaseMs: 5_000 };
// Obviously fake, tests only.
const SECRET = 'test-handoff-secret-0123456789abcdef';
const WEBHOOK_SECRET = 'test-webhook-secret-0123456789abcdef';
const VISITOR = 'visitor.private@example.org';
const MESSAGE = 'My parcel 4471 never came, please call me back';
const CONVERSATION = [
  { role: 'user' as const, text: 'Where is parcel 4471?' },
  { role: 'assistant' as const, text: 'I could not find that on this site.' },
];

const { start } = await proxyHarness();
let postgres: PostgresServer;
const handoffs: Handoff[] = [];
const smtps: SmtpServer[] = [];
beforeAll(async () => {
  postgres = await startPostgresServer();
}, 60_000);
afterAll(() => postgres?.remove());
afterEach(async () => {
  await Promise.all(handoffs.splice(0).map((handoff) => handoff.close()));
  await Promise.all(smtps.splice(0).map((smtp) => smtp.remove()));
});

let databases = 0;
const homes: [string, () => Promise<HandoffSettings['store']>][] = [
  ['files under DATA_DIR', async () => ({ dataDir: await mkdtemp(join(tmpdir(), 'handoff-outbox-')) })],
  [
    'PostgreSQL',
    async () => ({ dataDir: '/nonexistent', databaseUrl: await postgres.createDatabase(`handoff_${++databases}`) }),
  ],
];

/** A webhook receiver on loopback: each body with its signature, answered with `status()`. */
async function webhookReceiver(status = () => 204) {
  const received: { body: string; signature?: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: request.headers['x-assistant-signature'] as string,
      });
      response.writeHead(status()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  afterEachClose.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${port}/hook`, received };
}
const afterEachClose: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(afterEachClose.splice(0).map((close) => close()));
});

/** A handoff over `store`, the app in front of it, its log and its counts. */
async function serveHandoff(
  store: HandoffSettings['store'],
  extra: Partial<HandoffSettings> = {},
  options: Partial<AppOptions> = {},
) {
  const logs: string[] = [];
  const counts: HandoffCount[] = [];
  const handoff = createHandoff({
    to: { email: 'help@shop.example' },
    env: { dailyLimit: 50, minSeconds: 0 },
    title: 'Shop',
    store,
    secret: async () => SECRET,
    count: (event) => counts.push(event),
    log: (line) => logs.push(line),
    times: FAST,
    ...extra,
  });
  handoffs.push(handoff);
  const server = await start({ handoff, trustProxyHops: 1, log: (line) => logs.push(line), ...options });
  return { handoff, url: server.url, logs, counts };
}

async function formToken(url: string): Promise<string> {
  const response = await fetch(`${url}${HANDOFF_PATH}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** Sends the form: a fresh token unless the body names one. */
async function send(url: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const token = 'token' in body ? body.token : await formToken(url);
  const response = await fetch(`${url}${HANDOFF_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      email: VISITOR,
      message: MESSAGE,
      conversation: CONVERSATION,
      page: '/orders',
      language: 'en',
      ...body,
      token,
    }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { status?: string; error?: Record<string, string> },
  };
}

describe.each(homes)('the outbox in %s', (_home, makeStore) => {
  it('keeps a message while SMTP is down, says Sent, and mails it once SMTP is back: Reply-To the visitor, then nothing kept', async () => {
    const smtp = await smtpServer({ started: false });
    smtps.push(smtp);
    const { handoff, url, logs, counts } = await serveHandoff(await makeStore(), {
      env: { smtpUrl: smtp.url, from: 'assistant@shop.example', dailyLimit: 50, minSeconds: 0 },
    });

    expect(await send(url)).toEqual({ status: 202, body: { status: 'queued' } });
    await until(
      async () => logs.filter((line) => line.includes('not delivered')).length,
      (n) => n >= 2,
      'two failed attempts',
    );
    expect(await handoff.outbox.size()).toBe(1);

    await smtp.start();
    const [mail] = await until(
      () => smtp.mails(),
      (mails) => mails.length === 1,
      'the mail',
    );
    await until(
      () => handoff.outbox.size(),
      (size) => size === 0,
      'an empty outbox',
    );
    expect(mail.to).toEqual(['help@shop.example']);
    expect(mail.from).toBe('assistant@shop.example');
    expect(mail.text).toMatch(/^Reply-To: visitor\.private@example\.org\r?$/m);
    expect(mail.text).toMatch(/^Subject: \[Shop\] A visitor's question\r?$/m);
    expect(mail.text).toContain(MESSAGE);
    expect(mail.text).toContain('Page: /orders');
    expect(mail.text).toContain('**Visitor:** Where is parcel 4471?');
    expect(mail.text).toContain('**Assistant:** I could not find that on this site.');
    // Delivered once: more rounds of the worker send nothing more.
    await until(
      async () => logs.filter((line) => line.includes('delivered after')).length,
      (n) => n === 1,
      'the delivery line',
    );
    await new Promise((resolve) => setTimeout(resolve, FAST.pollMs * 4));
    expect(await smtp.mails()).toHaveLength(1);
    expect(counts).toEqual(['offered', 'sent', 'delivered']);

    const everything = logs.join('\n');
    for (const secret of [MESSAGE, VISITOR, '4471', smtp.password]) expect(everything).not.toContain(secret);
  }, 30_000);

  it('posts to the webhook a signed JSON body with the same fields and a text for Slack-style hooks', async () => {
    const hook = await webhookReceiver();
    const { handoff, url } = await serveHandoff(await makeStore(), {
      to: { webhook: hook.url },
      env: { webhookSecret: WEBHOOK_SECRET, dailyLimit: 50, minSeconds: 0 },
    });
    expect((await send(url)).status).toBe(202);
    await until(
      async () => hook.received.length,
      (n) => n === 1,
      'the webhook',
    );
    await until(
      () => handoff.outbox.size(),
      (size) => size === 0,
      'an empty outbox',
    );
    const [{ body, signature }] = hook.received;
    // The receiver's check, as docs/handoff.md gives it.
    expect(signature).toBe(`sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`);
    const json = JSON.parse(body);
    expect(json).toMatchObject({
      email: VISITOR,
      message: MESSAGE,
      conversation: CONVERSATION,
      page: '/orders',
      language: 'en',
    });
    expect(json.text).toContain(MESSAGE);
  }, 30_000);

  it('sets aside a message still undeliverable when its time is up, with one line, counted as failed', async () => {
    const hook = await webhookReceiver(() => 500);
    const { handoff, url, logs, counts } = await serveHandoff(await makeStore(), {
      to: { webhook: hook.url },
      times: { ...FAST, giveUpMs: 400 },
    });
    expect((await send(url)).status).toBe(202);
    await until(async () => counts.includes('failed'), Boolean, 'the message given up');
    expect(await handoff.outbox.size()).toBe(0);
    expect(hook.received.length).toBeGreaterThan(1);
    const lines = logs.filter((line) => line.includes('undeliverable'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/webhook: the webhook answered 500.*moved to/);
  }, 30_000);
});

describe('replicas on PostgreSQL', () => {
  it('deliver each message once, whichever replica took it', async () => {
    const hook = await webhookReceiver();
    const store = await homes[1][1]();
    const replicas = [
      await serveHandoff(store, { to: { webhook: hook.url } }),
      await serveHandoff(store, { to: { webhook: hook.url } }),
    ];
    const sent = 8;
    for (let n = 0; n < sent; n += 1) {
      const { url } = replicas[n % 2];
      expect((await send(url, { message: `message ${n}` }, { 'x-forwarded-for': `203.0.113.${n}` })).status).toBe(202);
    }
    await until(
      async () => hook.received.length,
      (n) => n >= sent,
      'every message',
    );
    await until(
      () => replicas[0].handoff.outbox.size(),
      (size) => size === 0,
      'an empty outbox',
    );
    await new Promise((resolve) => setTimeout(resolve, FAST.pollMs * 4));
    const messages = hook.received.map(({ body }) => JSON.parse(body).message).sort();
    expect(messages).toEqual(Array.from({ length: sent }, (_, n) => `message ${n}`).sort());
  }, 30_000);
});

describe('POST /api/handoff refuses with a code', () => {
  /** A handoff to a webhook that counts what reaches it: a refused message never does. */
  async function refusing(extra: Partial<HandoffSettings> = {}) {
    const hook = await webhookReceiver();
    const served = await serveHandoff(await homes[0][1](), { to: { webhook: hook.url }, ...extra });
    return { ...served, hook };
  }

  it('each malformed message, and keeps nothing of it', async () => {
    const { url, handoff, hook, logs } = await refusing();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ email: 'no-at-sign.example' }, 400, 'invalid_email'],
      [{ email: 'two@@shop.example' }, 400, 'invalid_email'],
      [{ email: 'someone@localhost' }, 400, 'invalid_email'],
      [{ email: 'a@shop.example\nBcc: x@y.example' }, 400, 'invalid_email'],
      [{ email: `${'a'.repeat(250)}@b.example` }, 400, 'invalid_email'],
      [{ message: '   ' }, 400, 'invalid_message'],
      [{ message: 'x'.repeat(MAX_HANDOFF_MESSAGE + 1) }, 400, 'invalid_message'],
      [
        { conversation: Array.from({ length: 51 }, () => ({ role: 'user', text: 'hi' })) },
        400,
        'conversation_too_long',
      ],
      [{ conversation: [{ role: 'user', text: 'x'.repeat(33 * 1024) }] }, 400, 'conversation_too_long'],
      [{ conversation: [{ role: 'system', text: 'obey' }] }, 400, 'invalid_body'],
      [{ token: undefined }, 400, 'missing_token'],
      [{ token: 'forged.token' }, 400, 'invalid_token'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await send(url, body);
      expect([answer.status, answer.body.error?.code], JSON.stringify(body).slice(0, 80)).toEqual([status, code]);
    }
    const huge = await fetch(`${url}${HANDOFF_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x'.repeat(70 * 1024) }),
    });
    expect([huge.status, ((await huge.json()) as { error: { code: string } }).error.code]).toEqual([
      413,
      'body_too_large',
    ]);
    const form = await fetch(`${url}${HANDOFF_PATH}`, { method: 'POST', body: 'email=a@b.example' });
    expect([form.status, ((await form.json()) as { error: { code: string } }).error.code]).toEqual([
      415,
      'unsupported_media_type',
    ]);
    expect(await handoff.outbox.size()).toBe(0);
    expect(hook.received).toHaveLength(0);
    expect(logs.join('\n')).not.toContain(VISITOR);
  });

  it('a token used twice, too old or too young, and one forged with another key', async () => {
    const { url } = await refusing({ env: { dailyLimit: 50, minSeconds: 60 } });
    const young = await formToken(url);
    expect((await send(url, { token: young })).body.error?.code).toBe('too_soon');
    const tokens = formTokens(SECRET, { minAgeMs: 0 });
    const old = tokens.issue(Date.now() - FORM_TOKEN_LIFETIME_MS - 1000);
    expect((await send(url, { token: old })).body.error?.code).toBe('expired_token');
    const forged = formTokens('another-secret-0123456789abcdef').issue(Date.now() - 120_000);
    expect((await send(url, { token: forged })).body.error?.code).toBe('invalid_token');
    // Issued two minutes ago by this server's key: taken once, then refused.
    const ripe = tokens.issue(Date.now() - 120_000);
    expect((await send(url, { token: ripe })).status).toBe(202);
    expect((await send(url, { token: ripe })).body.error?.code).toBe('replayed_token');
  });

  it('answers 503 when the outbox cannot be written, and the same form may be sent again', async () => {
    const { url, counts } = await serveHandoff({ dataDir: '/dev/null/not-a-folder' });
    const token = formTokens(SECRET).issue(Date.now() - 120_000);
    for (let n = 0; n < 4; n += 1) {
      const answer = await send(url, { token });
      expect([answer.status, answer.body.error?.code]).toEqual([503, 'unavailable']);
    }
    expect(counts).not.toContain('sent');
  });

  it('takes a filled honeypot in silence and sends nothing', async () => {
    const { url, handoff, hook, counts } = await refusing();
    expect(await send(url, { [HONEYPOT_FIELD]: 'http://spam.example' })).toEqual({
      status: 202,
      body: { status: 'queued' },
    });
    expect(await handoff.outbox.size()).toBe(0);
    expect(hook.received).toHaveLength(0);
    expect(counts).not.toContain('sent');
  });

  it("over 3 an hour from one visitor: 429 with the site's limit_message and contact link", async () => {
    const { url } = await refusing({
      limitMessage: 'Please call us instead.',
      contact: 'https://shop.example/contact',
    });
    const visitor = { 'x-forwarded-for': '198.51.100.7' };
    for (let n = 0; n < 3; n += 1) expect((await send(url, {}, visitor)).status).toBe(202);
    const over = await send(url, {}, visitor);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({
      code: 'rate_limited',
      limit_message: 'Please call us instead.',
      contact: 'https://shop.example/contact',
    });
    expect((await send(url, {}, { 'x-forwarded-for': '198.51.100.8' })).status).toBe(202);
  });

  it('over HANDOFF_DAILY_LIMIT for the site, counted across two replicas on Redis', async () => {
    const redis = await startRedisServer();
    afterEachClose.push(() => redis.stop());
    const counters = [new RedisCounters(redis.url, () => {}), new RedisCounters(redis.url, () => {})];
    afterEachClose.push(async () => {
      await Promise.all(counters.map((c) => c.close()));
    });
    const hook = await webhookReceiver();
    const replicas = await Promise.all(
      counters.map(async (shared) =>
        serveHandoff(
          await homes[0][1](),
          { to: { webhook: hook.url }, env: { dailyLimit: 3, minSeconds: 0 } },
          { counters: shared },
        ),
      ),
    );
    const answers = [];
    for (let n = 0; n < 5; n += 1) {
      answers.push((await send(replicas[n % 2].url, {}, { 'x-forwarded-for': `192.0.2.${n}` })).status);
    }
    expect(answers).toEqual([202, 202, 202, 429, 429]);
  });
});

describe("the owner's counts", () => {
  it('count each day the forms offered, the messages sent, delivered and set aside, in GET /api/stats', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'handoff-stats-'));
    const feedback = createFeedback({ store: new FileCountStore(dataDir, () => {}), secret: SECRET, log: () => {} });
    afterEachClose.push(() => feedback.close());
    const good = await webhookReceiver();
    const logs: string[] = [];
    const handoff = serverHandoff(
      { handoff: { dailyLimit: 50, minSeconds: 3 }, store: { dataDir } },
      { handoff: { webhook: good.url }, page: { title: 'Shop' } },
      feedback,
      (line) => logs.push(line),
    );
    if (!handoff) throw new Error('no handoff');
    handoffs.push(handoff);
    const ownerToken = 'test-owner-token-0123456789abcdef';
    const { url } = await start({ handoff, feedback, ownerToken, log: (line) => logs.push(line) });
    // A token a second and more old: the default three seconds a person needs are not waited for here.
    const ripe = formTokens(SECRET).issue(Date.now() - 5_000);
    await formToken(url);
    expect((await send(url, { token: ripe })).status).toBe(202);
    await until(
      async () => good.received.length,
      (n) => n === 1,
      'the webhook',
    );
    const stats = await until(
      async () => {
        const response = await fetch(`${url}${STATS_PATH}?days=1`, {
          headers: { authorization: `Bearer ${ownerToken}` },
        });
        return (await response.json()) as Stats;
      },
      (read) => read.totals.handoffs.delivered === 1,
      'the delivered count',
    );
    expect(stats.totals.handoffs).toEqual({ offered: 1, sent: 1, delivered: 1, failed: 0 });
    expect(stats.days[0].handoffs).toEqual(stats.totals.handoffs);
    expect(handoff.describe()).toBe(
      `handoffs go by webhook 127.0.0.1:${new URL(good.url).port}, waiting in ${join(dataDir, 'handoff', 'outbox')}`,
    );
  });
});
