import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FEEDBACK_PATH, type Stats } from '../../contract/feedback.ts';
import { STATS_PATH } from '../../contract/owner.ts';
import { chatBody, postChat, proxyHarness } from '../../testing/proxy-app.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { RedisCounters } from '../limits/counters.ts';
import { type CountStore, FileCountStore } from './count-store.ts';
import { createFeedback, type Feedback } from './feedback.ts';
import { RedisCountStore } from './redis-count-store.ts';
import { replyTokens, TOKEN_LIFETIME_MS } from './reply-token.ts';

/** The fields of a reply that carries a token (every reply here: the secret can be read). */
async function issued(feedback: Feedback, ...args: Parameters<Feedback['issue']>) {
  const fields = await feedback.issue(...args);
  if (!fields) throw new Error('the reply carries no token');
  return fields;
}

const { start } = await proxyHarness();
// Obviously fake: tests only.
const OWNER_TOKEN = 'test-owner-token-0123456789abcdef';
const folders: string[] = [];
const feedbacks: Feedback[] = [];
const connections: RedisCounters[] = [];
let redis: RedisServer;
// Where Redis saves when told to: searched for the visitor's text.
const redisDir = mkdtempSync(join(tmpdir(), 'feedback-redis-'));

beforeAll(async () => {
  redis = await startRedisServer({ dir: redisDir });
});
afterAll(async () => {
  await redis.stop();
  rmSync(redisDir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(feedbacks.splice(0).map((feedback) => feedback.close()));
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function dataDir(): string {
  const folder = mkdtempSync(join(tmpdir(), 'feedback-test-'));
  folders.push(folder);
  return folder;
}

/** The counts in Redis at `url`, on a connection of their own as the server's parts make it (server-parts.ts). */
function redisCounts(url: string): RedisCountStore {
  const counters = new RedisCounters(url, () => {});
  connections.push(counters);
  return new RedisCountStore(counters.connection);
}

/** A server with the owner's loop over `store`, and its log. */
async function serverWith(
  store: CountStore,
  options: { now?: () => number; ownerToken?: string; pages?: readonly string[] } = {},
) {
  const log: { to?: string[] } = {};
  const { now, pages } = options;
  const feedback = createFeedback({ store, log: (line) => log.to?.push(line), now, pages: pages && (() => pages) });
  feedbacks.push(feedback);
  const server = await start({ feedback, ownerToken: options.ownerToken ?? OWNER_TOKEN });
  // The feedback's lines go to the server's log, as in production.
  log.to = server.logs;
  return { ...server, feedback };
}

/** A whole reply's token, as the page gets it. */
async function replyToken(url: string, text = 'How do returns work?', extra: Record<string, unknown> = {}) {
  const response = await postChat(url, chatBody(text, extra));
  expect(response.status).toBe(200);
  const { reply } = (await response.json()) as { reply: string };
  expect(reply).toMatch(/^[\w-]+\.[\w-]+$/);
  return reply;
}

function vote(url: string, body: unknown) {
  return fetch(url + FEEDBACK_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function stats(url: string, days = 30): Promise<Stats> {
  const response = await fetch(`${url}${STATS_PATH}?days=${days}`, {
    headers: { authorization: `Bearer ${OWNER_TOKEN}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Stats;
}

describe('a vote', () => {
  it('counts once per reply: a change replaces it, and the same vote again changes nothing', async () => {
    const { url } = await serverWith(new FileCountStore(dataDir()));
    const reply = await replyToken(url, 'first', { first_message: true });
    await replyToken(url, 'second');
    expect((await vote(url, { reply, rating: 'up' })).status).toBe(204);
    expect((await vote(url, { reply, rating: 'up' })).status).toBe(204);
    expect((await stats(url)).totals).toMatchObject({ conversations: 1, messages: 2, without_sources: 2, up: 1 });
    expect((await vote(url, { reply, rating: 'down', reason: 'outdated' })).status).toBe(204);
    expect((await vote(url, { reply, rating: 'down', reason: 'unclear' })).status).toBe(204);
    const { totals, days } = await stats(url);
    expect(totals).toMatchObject({
      up: 0,
      down: 1,
      down_reasons: { wrong: 0, outdated: 0, unclear: 1, off_topic: 0, other: 0 },
    });
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toMatchObject({ date: new Date().toISOString().slice(0, 10), down: 1, messages: 2 });
  });

  it('is refused with a code for a forged, expired or malformed token, and counts nothing', async () => {
    let now = Date.now();
    const { url, logs } = await serverWith(new FileCountStore(dataDir()), { now: () => now });
    const reply = await replyToken(url);
    const [payload] = reply.split('.');
    const forgedClaims = Buffer.from(JSON.stringify({ i: 'x', t: now, s: ['https://evil.example/'] })).toString(
      'base64url',
    );
    const cases: [unknown, string][] = [
      [{ reply: `${payload}.${'A'.repeat(43)}`, rating: 'up' }, 'forged_token'],
      [{ reply: `${forgedClaims}.${reply.split('.')[1]}`, rating: 'down' }, 'forged_token'],
      [{ reply: replyTokens('another-secret').issue([], now), rating: 'up' }, 'forged_token'],
      [{ reply: 'not-a-token', rating: 'up' }, 'malformed_token'],
      [{ reply: 42, rating: 'up' }, 'malformed_token'],
      [{ reply, rating: 'maybe' }, 'invalid_body'],
      [{ reply, rating: 'up', reason: 'wrong' }, 'invalid_body'],
      [{ reply, rating: 'down', reason: 'I hated it' }, 'invalid_body'],
      [{ reply, rating: 'down', text: 'free text' }, 'invalid_body'],
    ];
    for (const [body, code] of cases) {
      const response = await vote(url, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    now += TOKEN_LIFETIME_MS + 1_000;
    const expired = await vote(url, { reply, rating: 'up' });
    expect(expired.status).toBe(400);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('expired_token');
    now -= TOKEN_LIFETIME_MS + 1_000;
    expect((await stats(url)).totals).toMatchObject({ up: 0, down: 0 });
    expect(logs.join('\n')).toContain('refused: forged_token');
    // Over 1 KB is no vote.
    expect((await vote(url, { reply, rating: 'up', pad: 'x'.repeat(1100) })).status).toBe(413);
  });

  it('counts Not helpful against the pages the reply cites, each once, and a changed vote takes them back', async () => {
    const pages = ['https://shop.example/returns', 'https://shop.example/hours', 'https://shop.example/bikes'];
    const { url, feedback } = await serverWith(new FileCountStore(dataDir()), { pages });
    const sources = [
      { n: 1, title: 'Returns', url: `${pages[0]}#returns-policy`, page: pages[0] },
      { n: 2, title: 'Hours', url: pages[1], page: pages[1] },
      { n: 3, title: 'Bikes', url: `${pages[2]}#sizes`, page: pages[2] },
    ];
    const reply = (await feedback.issue(sources, true))?.reply;
    expect(await feedback.issue([], true)).toMatchObject({ uncovered: true });
    expect(await feedback.issue([], false)).not.toHaveProperty('uncovered');

    // The reply cites [3] and [1]; [2] was given and not used.
    expect((await vote(url, { reply, rating: 'down', reason: 'wrong', cited: [3, 1, 3] })).status).toBe(204);
    expect((await stats(url)).down_sources).toEqual([
      { address: pages[2], down: 1 },
      { address: pages[0], down: 1 },
    ]);
    // Helpful instead: nothing against any page; Not helpful again, citing one.
    await vote(url, { reply, rating: 'up', cited: [3, 1] });
    expect((await stats(url)).down_sources).toEqual([]);
    await vote(url, { reply, rating: 'down', cited: [1] });
    expect((await stats(url)).down_sources).toEqual([{ address: pages[0], down: 1 }]);
    // With no citation, a Not helpful counts against no page.
    await vote(url, { reply, rating: 'down', reason: 'other' });
    expect((await stats(url)).down_sources).toEqual([]);
    expect((await stats(url)).totals).toMatchObject({ up: 0, down: 1 });
  });

  it('never counts a page the reply was not given: a number beyond its sources is refused', async () => {
    const pages = ['https://shop.example/returns', 'https://shop.example/secret'];
    const { url, feedback } = await serverWith(new FileCountStore(dataDir()), { pages });
    const { reply } = await issued(feedback, [{ n: 1, title: 'Returns', url: pages[0] }], true);
    for (const cited of [[2], [0], [1.5], ['1'], 'all', Array.from({ length: 40 }, () => 1)]) {
      const response = await vote(url, { reply, rating: 'down', cited });
      expect(response.status, JSON.stringify(cited)).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_body');
    }
    expect((await stats(url)).totals).toMatchObject({ down: 0 });
    expect((await stats(url)).down_sources).toEqual([]);
  });

  it('takes a vote on a reply given pages at long addresses: the token stays small whatever they are', async () => {
    // Four Cyrillic slugs, as a site's addresses carry them: 1,084 bytes of vote when the token held the addresses.
    const slug = encodeURI('возврат-и-обмен-товара-надлежащего-качества-в-течение-четырнадцати-дней');
    const pages = [1, 2, 3, 4, 5].map((n) => `https://магазин.example/${slug}-${n}/${slug}`);
    const { url, feedback } = await serverWith(new FileCountStore(dataDir()), { pages });
    const sources = pages.map((address, index) => ({
      n: index + 1,
      title: `Page ${index + 1}`,
      url: address,
      page: address,
    }));
    const { reply } = await issued(feedback, sources, true);
    const body = JSON.stringify({ reply, rating: 'down', reason: 'outdated', cited: [1, 2, 3, 4, 5] });
    expect(pages.join('').length).toBeGreaterThan(2000);
    expect(Buffer.byteLength(body)).toBeLessThan(400);

    expect((await vote(url, body)).status).toBe(204);
    const { down_sources } = await stats(url);
    expect(down_sources.map(({ address }) => address).sort()).toEqual([...pages].sort());
  });

  it('counts a cited page that has since left the site against no page', async () => {
    const pages = ['https://shop.example/returns', 'https://shop.example/hours'];
    const now: string[] = [...pages];
    const store = new FileCountStore(dataDir());
    const log: string[] = [];
    const feedback = createFeedback({ store, log: (line) => log.push(line), pages: () => now.slice() });
    feedbacks.push(feedback);
    const { url } = await start({ feedback, ownerToken: OWNER_TOKEN });
    const { reply } = await issued(
      feedback,
      pages.map((address, index) => ({ n: index + 1, title: 'Page', url: address, page: address })),
      true,
    );
    now.splice(0, 1);
    expect((await vote(url, { reply, rating: 'down', cited: [1, 2] })).status).toBe(204);
    expect((await stats(url)).down_sources).toEqual([{ address: pages[1], down: 1 }]);
  });
});

describe('the counts', () => {
  it('survive a restart under DATA_DIR, and the tokens given before it still take a vote', async () => {
    const folder = dataDir();
    const first = await serverWith(new FileCountStore(folder));
    const reply = await replyToken(first.url, 'q', { first_message: true });
    await vote(first.url, { reply, rating: 'up' });
    await first.feedback.close();

    const second = await serverWith(new FileCountStore(folder));
    expect((await stats(second.url)).totals).toMatchObject({ conversations: 1, messages: 1, up: 1 });
    await vote(second.url, { reply, rating: 'down' });
    expect((await stats(second.url)).totals).toMatchObject({ up: 0, down: 1 });
  });

  it('are shared by two replicas through Redis: a vote on one replica replaces the vote taken by the other', async () => {
    const url = `${redis.url}/1`;
    const a = await serverWith(redisCounts(url));
    const b = await serverWith(redisCounts(url));
    const reply = await replyToken(a.url);
    await replyToken(b.url);
    // Both at once: one of them replaces the other, never both counted.
    await Promise.all([vote(a.url, { reply, rating: 'up' }), vote(b.url, { reply, rating: 'up' })]);
    expect((await vote(b.url, { reply, rating: 'down', reason: 'other' })).status).toBe(204);
    for (const replica of [a, b]) {
      expect((await stats(replica.url)).totals).toMatchObject({ messages: 2, up: 0, down: 1 });
    }
  });
});

describe('GET /api/stats', () => {
  it('answers 401 without the owner token, limits wrong guesses, and is 404 with no OWNER_TOKEN', async () => {
    const { url } = await serverWith(new FileCountStore(dataDir()));
    expect((await fetch(url + STATS_PATH)).status).toBe(401);
    const wrong = { headers: { authorization: 'Bearer test-owner-token-0123456789abcdeX' } };
    const statuses = [];
    for (let attempt = 0; attempt < 6; attempt += 1) statuses.push((await fetch(url + STATS_PATH, wrong)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    const bad = await fetch(`${url}${STATS_PATH}?days=91`, { headers: { authorization: `Bearer ${OWNER_TOKEN}` } });
    expect(bad.status).toBe(429);

    const open = await serverWith(new FileCountStore(dataDir()));
    const over = await fetch(`${open.url}${STATS_PATH}?days=91`, {
      headers: { authorization: `Bearer ${OWNER_TOKEN}` },
    });
    expect(over.status).toBe(400);
    expect((await stats(open.url, 90)).days).toHaveLength(90);

    const none = await start({ feedback: createFeedback({ store: new FileCountStore(dataDir()), log: () => {} }) });
    expect((await fetch(none.url + STATS_PATH, { headers: { authorization: `Bearer ${OWNER_TOKEN}` } })).status).toBe(
      404,
    );
  });
});

describe('no visitor text', () => {
  it('is kept in Redis, under DATA_DIR or in the log, whatever was asked and voted', async () => {
    const marker = `marker-${Date.now().toString(36)}-unique-question`;
    const folder = dataDir();
    const fileServer = await serverWith(new FileCountStore(folder));
    const redisServer = await serverWith(redisCounts(`${redis.url}/2`));
    for (const { url } of [fileServer, redisServer]) {
      const reply = await replyToken(url, `Where is ${marker}?`, { first_message: true });
      await postChat(url, chatBody(`And ${marker} again?`, { stream: true })).then((response) => response.text());
      await vote(url, { reply, rating: 'down', reason: 'wrong' });
      await vote(url, { reply: `${marker}.${marker}`, rating: 'up' });
    }
    await fileServer.feedback.close();
    await redisServer.feedback.close();

    // Redis saved to a file, uncompressed, so that a marker in any key or value would be there as written.
    const client = new Redis(redis.url);
    await client.save();
    await client.quit();
    const saved = readFileSync(join(redisDir, 'dump.rdb'));
    expect(saved.includes('down_reason:wrong')).toBe(true);
    expect(saved.includes(marker)).toBe(false);

    const files = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const path = join(file.parentPath, file.name);
      expect(statSync(path).size).toBeGreaterThan(0);
      expect(readFileSync(path, 'utf8')).not.toContain(marker);
    }
    const log = [...fileServer.logs, ...redisServer.logs].join('\n');
    expect(log).toContain('refused: forged_token');
    expect(log).not.toContain(marker);
  });
});
