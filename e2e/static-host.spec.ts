import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { FAKE_REPLY, type FakeProvider } from '../testing/fake-provider';
import { type StaticHost, startStaticHost } from '../testing/static-host';
import { clientDir } from './e2e-env';
import {
  test as base,
  CHAT_ERROR_LOG,
  ChatPage,
  ERROR,
  expect,
  expectedPayload,
  holdRoute,
  hydrated,
  PLACEHOLDER,
  SERVER_START,
  sendsAreTaken,
  watchHydration,
} from './fixtures';

// The direct-mode build as a static host serves it (GitHub Pages, Netlify, S3, nginx): the files of its client folder
// as they are, from a server with none of the project's code (testing/static-host.ts). No Node server fills anything in.

const test = base.extend<{ staticHost: StaticHost }>({
  staticHost: [
    async ({ servers }, use) => use(await servers.once('static host', () => startStaticHost(clientDir('direct')))),
    SERVER_START,
  ],
  baseURL: async ({ staticHost }, use) => {
    await use(staticHost.url);
  },
});

// Run in direct mode only (e2e/playwright.config.ts): a static host serves the direct-mode build only.

/** The browser's own line for a response with an error status, which the page cannot prevent. */
const FAILED_RESOURCE = /^Failed to load resource: the server responded with a status of 500/;

async function builtPages(): Promise<string[]> {
  const dir = clientDir('direct');
  const names = (await readdir(dir, { recursive: true })) as string[];
  return names.filter((name) => name.endsWith('.html')).map((name) => join(dir, name));
}

test('every page the build wrote is finished: no placeholder left in any .html file', async () => {
  const pages = await builtPages();
  expect(pages.length).toBeGreaterThanOrEqual(13);
  for (const file of pages) {
    const html = await readFile(file, 'utf8');
    expect(html, file).not.toMatch(/%[A-Z][A-Z_]*%/);
  }
});

test('the heading and the title are there without JavaScript, in English and in German', async ({
  browser,
  baseURL,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false, baseURL });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('AI Assistant');
  await expect(page).toHaveTitle('AI Assistant');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', PLACEHOLDER);

  await page.goto('/index.de.html');
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('KI-Assistent');
  await expect(page).toHaveTitle('KI-Assistent');
  const input = page.getByRole('textbox', { name: 'Nachricht' });
  await expect(input).toHaveAttribute('placeholder', 'Ihre Nachricht hier');
  await expect(page.getByRole('button', { name: 'Senden', exact: true })).toBeVisible();
  await expect(page.getByRole('log', { name: 'Unterhaltung' })).toBeVisible();
  await context.close();
});

test("the specification's flows: a reply, then an error, with no page or console error", async ({ chat, fake }) => {
  await chat.sendWithEnter('Hello');
  await chat.expectTranscript([
    { sender: 'user', text: 'Hello' },
    { sender: 'bot', text: FAKE_REPLY },
  ]);
  await chat.expectReadyAfterReply();
  expect(fake.requests.map((request) => request.body)).toEqual([expectedPayload('Hello', 'direct')]);
  expect(chat.consoleErrors).toEqual([]);

  fake.respondWith({ status: 500 });
  await chat.sendWithClick('Again');
  await chat.expectTranscript([
    { sender: 'user', text: 'Hello' },
    { sender: 'bot', text: FAKE_REPLY },
    { sender: 'user', text: 'Again' },
    { sender: 'bot', text: ERROR },
  ]);
  await chat.expectIdle();
  // Only what the specification asks for (the failed call, logged) and the browser's own line for the 500.
  const unexpected = chat.consoleErrors.filter(
    (line) => !line.startsWith(CHAT_ERROR_LOG) && !FAILED_RESOURCE.test(line),
  );
  expect(unexpected).toEqual([]);
  expect(chat.chatErrors()).toHaveLength(1);
  expect(chat.pageErrors).toEqual([]);
});

test('the German page is German and taken over without a mismatch', async ({ page, fake }) => {
  const chat = new ChatPage(page);
  await page.goto('/index.de.html');
  await hydrated(page);
  await expect(page).toHaveTitle('KI-Assistent');
  const input = page.getByRole('textbox', { name: 'Nachricht' });
  await input.fill('Hallo');
  await input.press('Enter');
  await expect(page.getByRole('log', { name: 'Unterhaltung' }).locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);
  expect(fake.requests).toHaveLength(1);
  expect(chat.consoleErrors).toEqual([]);
  expect(chat.pageErrors).toEqual([]);
});

test('the first paint waits for no script: every script the page starts with is fetched at low priority', async ({
  page,
}) => {
  const cdp = await page.context().newCDPSession(page);
  const priorities = new Map<string, string>();
  cdp.on('Network.requestWillBeSent', ({ request }) => priorities.set(request.url, request.initialPriority));
  await cdp.send('Network.enable');
  await page.goto('/');
  await hydrated(page);
  const scripts = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLScriptElement | HTMLLinkElement>('script[src], link[rel="modulepreload"]')].map(
      (element) => ('src' in element ? element.src : element.href),
    ),
  );
  // The entry, served-card.js and each start-up chunk (src/start.ts: React DOM, Chakra, the app and what they share).
  expect(scripts.length).toBeGreaterThanOrEqual(5);
  expect(Object.fromEntries(scripts.map((url) => [url, priorities.get(url)]))).toEqual(
    Object.fromEntries(scripts.map((url) => [url, 'Low'])),
  );
});

test('start-up is React DOM, Chakra and the app in chunks of their own, each compile-hinted and none imported statically by the entry', async ({
  page,
}) => {
  await page.goto('/');
  await hydrated(page);
  const entry = await page.locator('script[type="module"][crossorigin]').getAttribute('src');
  const preloaded = await page
    .locator('link[rel="modulepreload"]')
    .evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
  const code = async (path: string) => (await page.request.get(path)).text();
  // src/start.ts imports each stage dynamically, a task after the one before: a static import would evaluate it in the
  // entry's task. Each stage is preloaded, so the split adds no round trip.
  const stages = ['react-dom', 'chakra', 'main'].map((name) => preloaded.find((href) => href.includes(`/${name}-`)));
  expect(stages.every(Boolean), `stages among ${preloaded.join(', ')}`).toBe(true);
  const entryCode = await code(entry ?? '');
  const staticImports = [...entryCode.matchAll(/\bimport\s*(?:[\w$*{}\s,]+from\s*)?["'`]([^"'`]+)["'`]/g)].map(
    (m) => m[1],
  );
  for (const stage of stages as string[]) {
    const file = stage.split('/').pop() ?? '';
    expect(entryCode, `the entry names ${file}`).toContain(file);
    expect(
      staticImports.some((path) => path.endsWith(file)),
      `the entry imports ${file} statically`,
    ).toBe(false);
  }
  // V8's compile hint (build/compile-hints.ts) on the first line of every start-up chunk.
  for (const path of [entry ?? '', ...preloaded]) {
    expect((await code(path)).split('\n', 1)[0], path).toBe('//# allFunctionsCalledOnLoad');
  }
});

/** Slows the page's main thread down as a modest phone's would be (CDP, Chromium only). */
async function throttleCpu(page: Page, rate: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
}

test('at 4x CPU, a message typed as soon as the box appears, and sent as soon as a send is taken, is shown once and sent once', async ({
  page,
  fake,
}) => {
  test.setTimeout(90_000);
  await throttleCpu(page, 4);
  const chat = new ChatPage(page);
  for (let load = 1; load <= 3; load++) {
    const text = `Early message ${load}`;
    await page.goto('/', { waitUntil: 'commit' });
    // The served card, before the app has taken it over (or while it does).
    await chat.input.fill(text);
    await sendsAreTaken(page);
    await chat.input.press('Enter');
    await chat.expectTranscript(
      [
        { sender: 'user', text },
        { sender: 'bot', text: FAKE_REPLY },
      ],
      30_000,
    );
    await expect.poll(() => fake.requests.length, { message: `requests after load ${load}` }).toBe(load);
    expect(fake.requests[load - 1].body).toEqual(expectedPayload(text, 'direct'));
    await hydrated(page);
    await chat.expectReadyAfterReply();
  }
  expect(chat.consoleErrors).toEqual([]);
  expect(chat.pageErrors).toEqual([]);
});

/** `text` shown once with the fake's reply and sent once, as the specification's payload; the card ready, no error. */
async function expectAnsweredOnce(chat: ChatPage, fake: FakeProvider, text: string) {
  await chat.expectTranscript([
    { sender: 'user', text },
    { sender: 'bot', text: FAKE_REPLY },
  ]);
  await chat.expectReadyAfterReply();
  expect(fake.requests.map((request) => request.body)).toEqual([expectedPayload(text, 'direct')]);
  expect(chat.consoleErrors).toEqual([]);
  expect(chat.pageErrors).toEqual([]);
}

test("a message sent before the app's bundle has even arrived is shown once and sent once", async ({ page, fake }) => {
  const release = await holdRoute(page, '**/assets/index-*.js');
  const chat = new ChatPage(page);
  await page.goto('/', { waitUntil: 'commit' });
  await chat.input.fill('Sent early');
  await sendsAreTaken(page);
  await chat.input.press('Enter');
  // The served card does nothing with it yet: it stays in the box, and no request goes out.
  await expect(chat.input).toHaveValue('Sent early');
  expect(fake.requests).toHaveLength(0);
  release();
  await expectAnsweredOnce(chat, fake, 'Sent early');
});

test('Enter pressed before the served card has its script keeps the text in the box, sends nothing, and the next Enter sends it once', async ({
  page,
  fake,
}) => {
  const releaseScript = await holdRoute(page, '**/served-card.js');
  const releaseBundle = await holdRoute(page, '**/assets/index-*.js');
  const chat = new ChatPage(page);
  await page.goto('/', { waitUntil: 'commit' });
  await chat.input.fill('Sent too early');
  await chat.input.press('Enter');
  releaseScript();
  releaseBundle();
  await hydrated(page);
  // Nothing heard that Enter: the app takes the card over with the text still in the box, and sends nothing.
  await expect(chat.input).toHaveValue('Sent too early');
  await expect(page.locator('[data-sender]')).toHaveCount(0);
  expect(fake.requests).toHaveLength(0);
  await chat.input.press('Enter');
  await expectAnsweredOnce(chat, fake, 'Sent too early');
});

test('the hydration watcher catches a mismatch (a page whose served heading differs from the app)', async ({
  browser,
}) => {
  const dir = await mkdtemp(join(tmpdir(), 'static-host-mismatch-'));
  const host = await (async () => {
    await cp(clientDir('direct'), dir, { recursive: true });
    const index = join(dir, 'index.html');
    const html = await readFile(index, 'utf8');
    await writeFile(index, html.replace(/>AI Assistant<\/h1>/, '>Not the app’s title</h1>'));
    return startStaticHost(dir);
  })();
  try {
    const context = await browser.newContext({ baseURL: host.url });
    const errors = watchHydration(context);
    const page = await context.newPage();
    await page.goto('/');
    await expect.poll(() => errors.length, { message: 'hydration errors seen' }).toBeGreaterThan(0);
    await context.close();
  } finally {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  }
});
