import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { FAKE_REPLY, type FakeProvider } from '../testing/fake-provider';
import { type KnowledgeSite, sitemapXml, sitePage, startKnowledgeSite } from '../testing/knowledge-site';
import { startAppServer } from './app-server';
import { BUILD_DIR } from './e2e-env';
import { test as base, expect, hydrated, SERVER_START } from './fixtures';

// Issue 35 against the production build and server: sources that link to the very section (an HTML heading's id, a
// Markdown heading's slug, a folder's index page at its folder's address), the owner's `keywords:`, and the one
// search-word call (a German question on an English site, a follow-up), with its failures and its switch.

const DOCS_URL = 'https://help.garden.example/';
/** Search words no visitor would type, so the test sees where they go (and where they never go). */
const WORDS = 'return refund zqxwords';
const GERMAN = 'Wie kann ich etwas zurückgeben?';
const CONTACT = 'https://garden.example/contact';
const GARDEN_CONFIG = `history: 1\ncontact: ${CONTACT}\n`;
const UNASKED_CONFIG = 'rewrite_questions: false\n';

/** The site's folder, a sitemap page with sections, and the server on them with `config` added to its knowledge. */
async function startGarden(provider: FakeProvider, site: KnowledgeSite, config = '') {
  const dir = await mkdtemp(join(BUILD_DIR, 'garden-'));
  await mkdir(join(dir, 'docs', 'faq'), { recursive: true });
  const pages = {
    'index.md': '# Our nursery\n\nWe have grown seedlings in our nursery near Ghent since 1987.\n',
    'faq/index.md':
      '# Questions\n\n## Do you deliver seedlings?\n\nWe deliver seedlings in spring, in boxes of twelve. ' +
      'Delivery costs five euros a box.\n',
    'returns.md': '# Returns\n\nYou can return any seedling tray within thirty days for a full refund.\n',
    'beds.md': '---\nkeywords: [allotment, plot]\n---\n# Growing beds\n\nRent a raised bed in our community garden.\n',
  };
  for (const [path, text] of Object.entries(pages)) await writeFile(join(dir, 'docs', path), text);
  await writeFile(
    join(dir, 'assistant.config.yaml'),
    `knowledge:\n  - path: ./docs\n    url: ${DOCS_URL}\n  - sitemap: ${site.origin}/sitemap.xml\n${config}`,
  );
  const server = await startAppServer('proxy', provider.baseURL, {
    ASSISTANT_CONFIG: join(dir, 'assistant.config.yaml'),
    DATA_DIR: join(dir, 'data'),
  });
  await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 30_000 }).toBe(200);
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const CARE_PAGE = sitePage({
  title: 'Seedling care',
  body:
    '<h1>Seedling care</h1><h2 id="watering">Watering</h2><p>Water the seedlings every morning, from below, ' +
    'so that their leaves stay dry.</p><h2 id="light">Light</h2><p>Seedlings want twelve hours of light a day.</p>',
});

/** The site of the sitemap: one HTML page with two sections. */
async function startCareSite(): Promise<KnowledgeSite> {
  const site = await startKnowledgeSite({ '/care': { body: CARE_PAGE } });
  site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${site.origin}/care`]) });
  return site;
}

const test = base.extend<{ careSite: KnowledgeSite; garden: { url: string }; unasked: { url: string } }>({
  careSite: [
    async ({ servers }, use) => use(await servers.once('search words: care site', startCareSite)),
    SERVER_START,
  ],
  garden: [
    async ({ provider, careSite, servers }, use) =>
      use(await servers.once('search words: garden', () => startGarden(provider, careSite, GARDEN_CONFIG))),
    SERVER_START,
  ],
  unasked: [
    async ({ provider, careSite, servers }, use) =>
      use(await servers.once('search words: unasked', () => startGarden(provider, careSite, UNASKED_CONFIG))),
    SERVER_START,
  ],
});

// Run in proxy mode only (e2e/playwright.config.ts): knowledge is proxy mode only.
// The reply cites every page it can be given: the Sources list shows what a reply cites, and here shows them all.
test.beforeEach(({ fake }) => fake.respondWith({ content: `${FAKE_REPLY} [1] [2] [3] [4] [5]` }));

type Sent = { messages: { role: string; content: string }[]; max_tokens: number; temperature: number };
const sent = (fake: FakeProvider) => fake.requests.map((request) => request.body as Sent);

/** Opens the card at `url`, sends `question` by its own labels (any language), and waits for the fake's reply. */
async function ask(page: Page, question: string, replies = 1) {
  const input = page.getByRole('textbox').first();
  await input.fill(question);
  await input.press('Enter');
  await expect(page.getByText(FAKE_REPLY)).toHaveCount(replies, { timeout: 15_000 });
  // The reply has ended (the box is back, empty): a test that then resets the fake provider cuts no answer short.
  await expect(input).toBeEnabled();
  await expect(input).toHaveValue('');
}

/** The addresses of the Sources lists' links under the replies (in any language), in order. */
const sourceLinks = (page: Page) =>
  page.locator('[data-sources] a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));

async function open(page: Page, url: string) {
  await page.goto(url);
  await hydrated(page);
}

test('links each source to its section: an HTML heading id in its page, a slug, index pages at / and /faq/', async ({
  page,
  fake,
  garden,
  careSite,
}) => {
  await open(page, garden.url);
  await ask(page, 'How often should I water the seedlings?');
  await ask(page, 'Do you deliver seedlings?', 2);
  await ask(page, 'Since when have you grown seedlings in your nursery near Ghent?', 3);

  const links = await sourceLinks(page);
  expect(links).toContain(`${careSite.origin}/care#watering`);
  expect(links).toContain(`${DOCS_URL}faq/#do-you-deliver-seedlings`);
  expect(links).toContain(`${DOCS_URL}#our-nursery`);
  expect(links.some((link) => /\/index\b/.test(link ?? ''))).toBe(false);
  // The id the link names is one its page has.
  expect(await (await fetch(`${careSite.origin}/care`)).text()).toContain('<h2 id="watering">');
  // The model was given the same addresses as the visitor.
  const given = sent(fake).map(({ messages }) => messages[0].content);
  expect(given.join('\n')).toContain(`— ${careSite.origin}/care#watering\n`);
  expect(given.join('\n')).toContain(`— ${DOCS_URL}faq/#do-you-deliver-seedlings\n`);
});

test("finds a page by a word that only its owner's keywords: hold", async ({ page, garden }) => {
  await open(page, garden.url);
  await ask(page, 'Do you have allotments?');
  expect(await sourceLinks(page)).toEqual([`${DOCS_URL}beds#growing-beds`]);
});

test('gives a follow-up its page, through the search words of it and the question before it', async ({
  page,
  fake,
  garden,
}) => {
  await open(page, garden.url);
  await ask(page, 'Do you deliver seedlings?');
  fake.reset();
  fake.queue({ content: 'seedling delivery cost box' });
  await ask(page, 'And how much is it?', 2);

  const [search, chat] = sent(fake);
  expect(search.messages.at(-1)?.content).toBe(
    'Previous question: Do you deliver seedlings?\nQuestion: And how much is it?',
  );
  expect(chat.messages[0].content).toContain('> We deliver seedlings in spring, in boxes of twelve. Delivery costs');
  expect(chat.messages.at(-1)).toEqual({ role: 'user', content: 'And how much is it?' });
});

test('a new topic after an on-topic question gets no Sources, whatever the question before it found, and Contact us', async ({
  page,
  fake,
  garden,
}) => {
  await open(page, garden.url);
  await ask(page, 'Do you deliver seedlings?');
  expect(await sourceLinks(page)).toEqual([`${DOCS_URL}faq/#do-you-deliver-seedlings`]);
  fake.reset();
  // What a model gives for a question the site cannot cover: it was told which site it is.
  fake.queue({ content: 'NONE' });
  fake.respondWith({ content: `${FAKE_REPLY} [1]` });
  await ask(page, 'What will the weather be like tomorrow?', 2);

  const [search, chat] = sent(fake);
  expect(search.messages.at(-1)?.content).toBe(
    'Previous question: Do you deliver seedlings?\nQuestion: What will the weather be like tomorrow?',
  );
  // No passage reached the model: the previous question's page is not carried over to a new topic.
  expect(JSON.stringify(chat.messages)).not.toContain('We deliver seedlings');
  // One Sources list, the first reply's; one Contact us, the second's (a covered reply offers none).
  await expect(page.getByRole('link', { name: 'Contact us' })).toHaveCount(1);
  await expect(page.getByRole('link', { name: 'Contact us' })).toHaveAttribute('href', CONTACT);
  await expect(page.locator('[data-sources]')).toHaveCount(1);
  expect(await sourceLinks(page)).toEqual([`${DOCS_URL}faq/#do-you-deliver-seedlings`]);
});

test.describe('with the browser in German, on an English site', () => {
  test.use({ locale: 'de-DE' });

  test('finds the English page through one bounded search-word call, whose words are never shown nor given', async ({
    page,
    fake,
    garden,
  }) => {
    await open(page, garden.url);
    fake.queue({ content: WORDS });
    await ask(page, GERMAN);

    const [search, chat] = sent(fake);
    expect(sent(fake)).toHaveLength(2);
    expect(search.max_tokens).toBeLessThanOrEqual(60);
    expect(search.temperature).toBe(0);
    expect(search.messages.at(-1)?.content).toBe(`Question: ${GERMAN}`);
    expect(await sourceLinks(page)).toEqual([`${DOCS_URL}returns#returns`]);
    expect(chat.messages[0].content).toContain('> You can return any seedling tray within thirty days');
    expect(chat.messages.at(-1)).toEqual({ role: 'user', content: GERMAN });
    expect(JSON.stringify(chat)).not.toContain('zqxwords');
    expect(await page.content()).not.toContain('zqxwords');
  });

  test('falls back on the question as typed when the call fails or times out, and the reply still comes', async ({
    page,
    fake,
    garden,
  }) => {
    await open(page, garden.url);
    fake.queue({ status: 500 });
    await ask(page, GERMAN);
    expect(sent(fake)).toHaveLength(2);
    expect(sent(fake)[1].messages.at(-1)).toEqual({ role: 'user', content: GERMAN });

    // The call's own time limit (3 s) ends it; the reply follows.
    fake.reset();
    fake.queue({ hang: true });
    await ask(page, GERMAN, 2);
    expect(fake.requests[0].aborted).toBe(true);
    expect(sent(fake)).toHaveLength(2);
  });

  test('makes no search-word call with rewrite_questions: false', async ({ page, fake, unasked }) => {
    await open(page, unasked.url);
    await ask(page, GERMAN);
    expect(sent(fake)).toHaveLength(1);
    expect(sent(fake)[0].messages.at(-1)).toEqual({ role: 'user', content: GERMAN });
  });
});
