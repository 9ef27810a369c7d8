import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FEEDBACK_PATH, type Stats } from '../contract/feedback';
import type { FakeProvider } from '../testing/fake-provider';
import { type KnowledgeSite, sitemapXml, sitePage, startKnowledgeSite } from '../testing/knowledge-site';
import { startAppServer } from './app-server';
import { expectNoAxeViolations } from './axe-check';
import { BUILD_DIR } from './e2e-env';
import { test as base, type ChatPage, expect, SERVER_START } from './fixtures';

// The production build and server with the site's pages configured: a folder (relative to the configuration file) and
// a sitemap on a local site. What the model is given (read from the fake provider), what the site was asked for, and
// the sources the visitor sees under the reply.

const DOCS_URL = 'https://docs.acme.example/help/';
// Obviously fake: tests only.
const OWNER_TOKEN = 'test-owner-token-knowledge-not-real-5e2a';
const HOSTILE_TITLE = '<img src=x onerror="window.hostile=1"> Warranty & <b>repairs</b>';

/** A site of another origin, which the shop's sitemap lists and the sync must not read. */
const startElsewhere = () =>
  startKnowledgeSite({ '/offer': { body: '<title>Offer</title><p>Spades half price.</p>' } });

/** The shop's site: its robots.txt, its sitemap, and pages in English, in Japanese and behind robots.txt. */
async function startShop(elsewhere: KnowledgeSite): Promise<KnowledgeSite> {
  const site = await startKnowledgeSite();
  const page = (lang: string, title: string, text: string) => ({
    body: sitePage({ title, lang, body: `<h1>${title}</h1><p>${text}</p>` }),
  });
  site.set('/robots.txt', { body: 'User-agent: AIAssistantBot\nDisallow: /private/\n', type: 'text/plain' });
  site.set('/sitemap.xml', {
    type: 'application/xml',
    body: sitemapXml([
      `${site.origin}/hours`,
      `${site.origin}/ja/returns`,
      `${site.origin}/private/salaries`,
      `${elsewhere.origin}/offer`,
    ]),
  });
  site.set('/hours', page('en', 'Opening hours', 'The Acme shop opens Monday to Saturday from nine to six.'));
  site.set(
    '/ja/returns',
    page('ja', '返品について', '商品はお届けから三十日以内であれば返品できます。返金は五営業日以内に行います。'),
  );
  site.set('/private/salaries', page('en', 'Salaries', 'The salaries of the shop staff.'));
  return site;
}

/** The server on a folder of Markdown pages and the shop's sitemap, resolved once its index is ready. */
async function startKnowledgeApp(provider: FakeProvider, shop: KnowledgeSite) {
  const dir = await mkdtemp(join(BUILD_DIR, 'knowledge-'));
  await mkdir(join(dir, 'docs'), { recursive: true });
  await writeFile(
    join(dir, 'docs', 'returns.md'),
    '# Returns policy\n\nYou can return any garden tool within thirty days of delivery for a full refund.\n',
  );
  await writeFile(
    join(dir, 'docs', 'warranty.md'),
    `---\ntitle: '${HOSTILE_TITLE}'\n---\n# Warranty\n\nEvery lawnmower carries a five-year warranty on its engine.\n`,
  );
  // Three pages on composting, one with two sections: a question about it is given all three.
  await writeFile(
    join(dir, 'docs', 'compost.md'),
    '# Composting\n\n## Starting a heap\n\nA compost heap wants green leaves and brown twigs in equal parts.\n\n' +
      '## Turning the heap\n\nFork the compost heap over every week, so that its leaves rot evenly.\n',
  );
  await writeFile(
    join(dir, 'docs', 'bins.md'),
    '# Compost bins\n\nOur wooden compost bins keep a heap of leaves dry through the winter.\n',
  );
  await writeFile(
    join(dir, 'docs', 'mulch.md'),
    '# Compost mulch\n\nA compost heap of fallen leaves becomes mulch by spring: spread it around shrubs.\n',
  );
  const config = join(dir, 'assistant.config.yaml');
  await writeFile(
    config,
    `knowledge:\n  - path: ./docs\n    url: ${DOCS_URL}\n  - sitemap: ${shop.origin}/sitemap.xml\n`,
  );
  const server = await startAppServer('proxy', provider.baseURL, {
    ASSISTANT_CONFIG: config,
    DATA_DIR: join(dir, 'data'),
    OWNER_TOKEN,
  });
  // The server answers at once; the index follows. /readyz says when.
  await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 30_000 }).toBe(200);
  return {
    url: server.url,
    output: server.output,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const test = base.extend<{
  shop: KnowledgeSite;
  elsewhere: KnowledgeSite;
  knowledgeApp: { url: string; output: string[] };
}>({
  elsewhere: [
    async ({ servers }, use) => use(await servers.once('knowledge: elsewhere', startElsewhere)),
    SERVER_START,
  ],
  shop: [
    async ({ elsewhere, servers }, use) => use(await servers.once('knowledge: shop', () => startShop(elsewhere))),
    SERVER_START,
  ],
  // Its index is built before its first test: on a busy machine that is longer than a test's own 20 s.
  knowledgeApp: [
    async ({ provider, shop, servers }, use) =>
      use(await servers.once('knowledge: app', () => startKnowledgeApp(provider, shop))),
    SERVER_START,
  ],
  baseURL: async ({ knowledgeApp }, use) => {
    await use(knowledgeApp.url);
  },
});

// Run in proxy mode only (e2e/playwright.config.ts): knowledge is proxy mode only.

type Sent = { messages: { role: string; content: string }[] };
const lastSent = (fake: FakeProvider) => fake.requests.at(-1)?.body as Sent;

/** The Sources list under the last reply, as shown: each link's text, address, target and rel, and the list's text. */
async function shownSources(chat: ChatPage) {
  const list = chat.page.getByRole('region', { name: 'Sources' }).last();
  await expect(list).toBeVisible();
  const links = await list
    .getByRole('link')
    .evaluateAll((anchors) =>
      anchors.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')]),
    );
  return { links, text: await list.textContent() };
}

test('gives the model the page a question is about, and shows its source under the reply', async ({ chat, fake }) => {
  fake.respondWith({ content: 'Within thirty days [1]. See [the form](https://evil.example/returns) or [4].' });
  const question = 'How many days do I have to return a garden tool?';
  await chat.sendWithEnter(question);
  await chat.markdownLoaded();
  await expect(chat.bubbles('bot').last()).toContainText('Within thirty days');

  const sent = lastSent(fake).messages;
  expect(sent.at(-1)).toEqual({ role: 'user', content: question });
  expect(sent[0].role).toBe('system');
  expect(sent[0].content).toContain(`[1] Returns policy — ${DOCS_URL}returns#returns-policy\n`);
  expect(sent[0].content).toContain('> You can return any garden tool within thirty days');
  expect(sent[0].content).not.toContain('Opening hours');

  const { links, text } = await shownSources(chat);
  expect(links).toEqual([['Returns policy', `${DOCS_URL}returns#returns-policy`, '_blank', 'noopener noreferrer']]);
  expect(text).toContain('docs.acme.example');
  // The reply's [1] is the given source; its own address and a [4] nobody gave stay text.
  const reply = chat.bubbles('bot').last();
  await expect(reply.getByRole('link')).toHaveCount(1);
  await expect(reply.getByRole('link', { name: '[1]' })).toHaveAttribute('href', `${DOCS_URL}returns#returns-policy`);
  await expect(reply).toContainText('the form (https://evil.example/returns) or [4].');
});

test('finds a page of the sitemap, and a Japanese question the Japanese page', async ({ chat, fake }) => {
  fake.respondWith({ content: 'As the page says [1].' });
  await chat.sendWithEnter('When does the shop open on Saturday?');
  await expect(chat.page.getByRole('region', { name: 'Sources' })).toHaveCount(1);
  expect(lastSent(fake).messages[0].content).toContain('Opening hours');

  await chat.sendWithEnter('返品はいつまでできますか？');
  await expect(chat.page.getByRole('region', { name: 'Sources' })).toHaveCount(2);
  const system = lastSent(fake).messages[0].content;
  expect(system).toContain('返品について');
  expect(system).not.toContain('Opening hours');
  expect((await shownSources(chat)).links.map(([title]) => title)).toEqual(['返品について']);
});

test('gives an off-topic question nothing: no passages, no sources, the message alone', async ({ chat, fake }) => {
  await chat.sendWithEnter('How do I bake sourdough bread?');
  await chat.expectTranscript([
    { sender: 'user', text: 'How do I bake sourdough bread?' },
    { sender: 'bot', text: 'Hello from the fake provider' },
  ]);
  expect(lastSent(fake).messages).toEqual([{ role: 'user', content: 'How do I bake sourdough bread?' }]);
  await expect(chat.page.getByRole('region', { name: 'Sources' })).toHaveCount(0);
});

/** The three composting pages given for a question about compost heaps, in their numbers' order: title and address. */
async function compostPages(chat: ChatPage, fake: FakeProvider, reply: string) {
  fake.respondWith({ content: reply });
  await chat.sendWithEnter('Which leaves for a compost heap?');
  await chat.markdownLoaded();
  await expect(chat.bubbles('bot').last()).toContainText(reply.slice(0, 12));
  // The Composting page's two sections are both given, under one number: three pages, three sources.
  const system = lastSent(fake).messages[0].content;
  expect(system).toContain('> A compost heap wants');
  expect(system).toContain('> Fork the compost heap over');
  const given = [...system.matchAll(/^\[\d\] (.+) — (\S+)$/gm)].map(([, title, url]) => [title, url]);
  expect(given.map(([title]) => title).sort()).toEqual(['Compost bins', 'Compost mulch', 'Composting']);
  expect(given.every(([, url]) => url.startsWith(DOCS_URL))).toBe(true);
  return given;
}

test('lists only the pages the reply cites, in the order it cites them, each once, the host once', async ({
  chat,
  fake,
}) => {
  const { page } = chat;
  const given = await compostPages(chat, fake, 'Spread it as mulch [3]; green and brown in equal parts [1] [3].');
  const reply = chat.bubbles('bot').last();
  await expect(reply.getByRole('link', { name: '[3]' })).toHaveCount(2);
  await expect(reply.getByRole('link', { name: '[1]' })).toHaveAttribute('href', given[0][1]);

  // [3] before [1]; the page the reply does not cite is not shown at all, and there is nothing to open.
  const list = page.getByRole('region', { name: 'Sources' }).last();
  await expect(list.locator('p')).toHaveText('Sources from docs.acme.example');
  const shownLinks = () => list.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  expect(await shownLinks()).toEqual([given[2][1], given[0][1]]);
  await expect(list).not.toContainText(given[1][0]);
  await expect(list.getByRole('button')).toHaveCount(0);
  expect((await list.textContent())?.match(/docs\.acme\.example/g)).toHaveLength(1);
  await expectNoAxeViolations(page, 'with a Sources list');

  // By keyboard: from the votes beside the bubble, Tab reaches the list's links, in order.
  await page.getByRole('button', { name: 'Not helpful' }).last().focus();
  for (const href of [given[2][1], given[0][1]]) {
    await page.keyboard.press('Tab');
    await expect(list.locator(`a[href="${href}"]`)).toBeFocused();
  }
});

test('a reply that cites one of three pages lists one, and Not helpful on it counts that page alone', async ({
  chat,
  fake,
  knowledgeApp,
}) => {
  const stats = async () => {
    const response = await fetch(`${knowledgeApp.url}/api/stats?days=1`, {
      headers: { authorization: `Bearer ${OWNER_TOKEN}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Stats;
  };
  const before = await stats();
  const given = await compostPages(chat, fake, 'Turn the heap every week [2].');
  const list = chat.page.getByRole('region', { name: 'Sources' }).last();
  await expect(list.getByRole('link')).toHaveCount(1);
  await expect(list.getByRole('link')).toHaveText(given[1][0]);

  const voted = chat.page.waitForResponse((response) => response.url().endsWith(FEEDBACK_PATH));
  await chat.page.getByRole('button', { name: 'Not helpful' }).last().click();
  expect((await voted).status()).toBe(204);
  await expect(chat.page.getByRole('status').filter({ hasText: 'Thanks' })).toHaveCount(1);
  const after = await stats();
  expect(after.totals.down).toBe(before.totals.down + 1);
  const page = given[1][1].replace(/#.*$/, '');
  const count = (stats: Stats, address: string) =>
    stats.down_sources.find((source) => source.address === address)?.down ?? 0;
  // That page, and neither of the two given and not cited.
  expect(count(after, page) - count(before, page)).toBe(1);
  for (const [, address] of [given[0], given[2]]) {
    const other = address.replace(/#.*$/, '');
    expect(count(after, other)).toBe(count(before, other));
  }
});

test('shows a hostile title as text', async ({ chat, fake }) => {
  fake.respondWith({ content: 'Five years [1].' });
  await chat.sendWithEnter('How long is the warranty on a lawnmower engine?');
  const { links } = await shownSources(chat);
  expect(links).toEqual([[HOSTILE_TITLE, `${DOCS_URL}warranty#warranty`, '_blank', 'noopener noreferrer']]);
  expect(await chat.page.evaluate(() => (window as { hostile?: number }).hostile)).toBeUndefined();
  await expect(chat.page.getByRole('region', { name: 'Sources' }).locator('img, b')).toHaveCount(0);
  expect(lastSent(fake).messages[0].content).toContain(`— ${DOCS_URL}warranty#warranty\n`);
});

test('never fetches what robots.txt disallows, nor another origin', async ({ shop, elsewhere }) => {
  const paths = shop.requests.map(({ path }) => path);
  expect(paths).toEqual(expect.arrayContaining(['/robots.txt', '/sitemap.xml', '/hours', '/ja/returns']));
  expect(paths).not.toContain('/private/salaries');
  expect(elsewhere.requests).toEqual([]);
  expect(shop.requests.every(({ userAgent }) => userAgent.includes('AIAssistantBot'))).toBe(true);
});
