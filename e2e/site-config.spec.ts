import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import type { EmbedApi, EmbedEvents } from '../embed/loader';
import { readAccent } from '../server/pages/accent';
import { FAKE_REPLY } from '../testing/fake-provider';
import { hostPageHtml } from '../testing/host-site';
import { configuredAppFixture } from './embed-site';
import { test as base, box, ChatPage, expect, hydrated, overlap } from './fixtures';

// The production build and server with a site configuration (e2e/site-config.yaml, through ASSISTANT_CONFIG): what the
// visitor sees, what the model receives, what the page never gets, and the embed's events on a host page.

const CONFIG = fileURLToPath(new URL('./site-config.yaml', import.meta.url));
const TITLE = 'Acme <Garden> Help';
const INSTRUCTIONS = 'E2E-INSTRUCTIONS-5f3b: you are the assistant of Acme, a garden tools shop.';
const STARTERS = ['What do you sell?', 'Do you ship abroad?'];
/** The configured accent, #7e22ce, as computed styles give it. */
const ACCENT_RGB = 'rgb(126, 34, 206)';

const test = base.extend<{ siteApp: { url: string; output: string[] } }>({
  siteApp: [...configuredAppFixture(CONFIG)],
  baseURL: async ({ siteApp }, use) => {
    await use(siteApp.url);
  },
});

// Run in proxy mode only (e2e/playwright.config.ts): instructions and history are proxy mode only.

/** `#rrggbb` as computed styles give it. */
function hexToRgb(hex: string): string {
  const [red, green, blue] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${red}, ${green}, ${blue})`;
}

const starters = (page: Page) => page.getByRole('group', { name: 'Suggested questions' });

async function openChat(page: Page): Promise<ChatPage> {
  const chat = new ChatPage(page);
  await page.goto('/');
  await expect(chat.input).toBeEditable();
  await hydrated(page);
  return chat;
}

test('shows the title, the welcome as Markdown, and the accent on the user bubble and Send', async ({
  page,
  fake: _fake,
}) => {
  const chat = await openChat(page);

  await expect(page.getByRole('heading', { level: 1 })).toHaveText(TITLE);
  await expect(page).toHaveTitle(TITLE);
  const welcome = chat.bubbles('bot').first();
  await expect(welcome.locator('strong')).toHaveText('Welcome to Acme!');
  await expect(welcome.getByRole('link', { name: 'our tools' })).toHaveAttribute('href', 'https://acme.example/tools');
  await expect(chat.sendButton).toHaveCSS('background-color', ACCENT_RGB);

  await chat.sendWithEnter('Hello');
  await expect(chat.bubbles('user')).toHaveCSS('background-color', ACCENT_RGB);
  await chat.expectTranscript([
    { sender: 'bot', text: 'Welcome to Acme! Ask about our tools.' },
    { sender: 'user', text: 'Hello' },
    { sender: 'bot', text: FAKE_REPLY },
  ]);
  expect(chat.pageErrors).toEqual([]);
});

test('the served page has the title before any script runs', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ javaScriptEnabled: false, baseURL });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(TITLE);
  await expect(page).toHaveTitle(TITLE);
  await context.close();
});

test('a starter sends its text, goes away, and the model receives the instructions then the message', async ({
  page,
  fake,
}) => {
  const chat = await openChat(page);
  await expect(starters(page).getByRole('button')).toHaveText(STARTERS);

  await starters(page).getByRole('button', { name: 'Do you ship abroad?' }).click();

  await expect(chat.bubbles('user')).toHaveText(['Do you ship abroad?']);
  await expect(starters(page)).toHaveCount(0);
  await expect(chat.bubbles('bot').last()).toHaveText(FAKE_REPLY);
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0].body).toMatchObject({
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: 'Do you ship abroad?' },
    ],
  });
});

test('with history 2, the third request carries the first two exchanges', async ({ page, fake }) => {
  fake.queue({ content: 'First answer.' }, { content: 'Second answer.' }, { content: 'Third answer.' });
  const chat = await openChat(page);

  for (const [index, question] of ['first?', 'second?', 'third?'].entries()) {
    await chat.sendWithEnter(question);
    await expect(chat.bubbles('bot')).toHaveCount(index + 2);
  }

  expect(fake.requests.map((request) => request.body)).toMatchObject([
    { messages: [{ role: 'system' }, { role: 'user', content: 'first?' }] },
    {
      messages: [
        { role: 'system' },
        { role: 'user', content: 'first?' },
        { role: 'assistant', content: 'First answer.' },
        { role: 'user', content: 'second?' },
      ],
    },
    {
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: 'first?' },
        { role: 'assistant', content: 'First answer.' },
        { role: 'user', content: 'second?' },
        { role: 'assistant', content: 'Second answer.' },
        { role: 'user', content: 'third?' },
      ],
    },
  ]);
});

test('no file the page loads contains the instructions', async ({ page, fake: _fake }) => {
  const loaded = new Set<string>();
  page.on('request', (request) => {
    if (request.method() === 'GET') loaded.add(request.url());
  });
  const chat = await openChat(page);
  await chat.sendWithEnter('Hello');
  await expect(chat.bubbles('bot').last()).toHaveText(FAKE_REPLY);
  // Every lazy chunk is in by now: the openai client's and the Markdown renderer's.
  await chat.markdownLoaded();
  await page.waitForLoadState('networkidle');

  const paths = [...loaded].map((url) => new URL(url).pathname);
  expect(paths).toEqual(expect.arrayContaining(['/', expect.stringMatching(/^\/assets\/rich-reply-.*\.js$/)]));
  expect(paths.filter((path) => path.endsWith('.js')).length).toBeGreaterThanOrEqual(3);
  // Asked for again, as the browser got them (compressed where it accepts it; the client decodes).
  for (const url of loaded) {
    const body = await (await page.request.get(url, { headers: { 'accept-encoding': 'br, gzip' } })).text();
    expect(body.length, url).toBeGreaterThan(0);
    expect(body, url).not.toContain('E2E-INSTRUCTIONS');
  }
});

test('a host page hears open, message and close, never the text', async ({ page, site, siteApp }) => {
  const appOrigin = new URL(siteApp.url).origin;
  await page.goto(site.page('/', hostPageHtml({ appOrigin })));
  // Named after the site's title.
  const launcher = page.getByRole('button', { name: `Chat with ${TITLE}` });
  await expect(launcher).toBeVisible();
  await page.evaluate(() => {
    const api = (window as unknown as { AIAssistant: EmbedApi & EmbedEvents }).AIAssistant;
    const heard: string[] = [];
    (window as unknown as { heard: string[] }).heard = heard;
    const dropped = () => heard.push('dropped handler');
    for (const name of ['open', 'close', 'message'] as const) {
      api.on(name, (event) =>
        heard.push(`${event.type}${(event as CustomEvent).detail != null ? ' with detail' : ''}`),
      );
      api.on(name, dropped);
    }
    for (const name of ['open', 'close', 'message'] as const) api.off(name, dropped);
  });
  const heard = () => page.evaluate(() => (window as unknown as { heard: string[] }).heard);

  await launcher.click();
  const frame = page.frameLocator('iframe[title="AI Assistant chat"]');
  await expect(frame.getByRole('textbox', { name: 'Message' })).toBeFocused();
  await frame.getByRole('button', { name: 'What do you sell?' }).click();
  await expect(frame.locator('[data-sender="bot"]').last()).toHaveText(FAKE_REPLY);
  // The reply has ended once the box takes text again: the text can show while its stream is still open, and an
  // Escape then stops the reply (useEscapeKey) instead of closing the panel.
  await expect(frame.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await page.keyboard.press('Escape');
  await expect(page.locator('iframe')).toBeHidden();

  await expect.poll(heard).toEqual(['open', 'message', 'close']);
});

test("on a host page with a fixed footer, the launcher wears the site's accent and title, and its offsets clear the footer", async ({
  page,
  site,
  siteApp,
}) => {
  const appOrigin = new URL(siteApp.url).origin;
  const launcher = page.getByRole('button', { name: `Chat with ${TITLE}` });
  const imprint = page.getByRole('link', { name: 'Imprint' });
  // The host page's own CSS cannot recolour it: the site's file is the accent's one source.
  const css = ':root { --ai-accent: #b91c1c; }';
  const { width, height } = page.viewportSize() ?? { width: 0, height: 0 };

  // Where it sits by default, it covers the footer's link.
  await page.goto(site.page('/footer', hostPageHtml({ appOrigin, footer: true, css })));
  await expect(launcher).toHaveCSS('background-color', ACCENT_RGB);
  expect(overlap(await box(launcher), await box(imprint)), 'the default launcher covers the link').toBe(true);

  await page.goto(
    site.page(
      '/footer-offsets',
      hostPageHtml({ appOrigin, footer: true, css, data: { 'offset-bottom': '72', 'offset-side': '8' } }),
    ),
  );
  const moved = await box(launcher);
  expect({ bottom: height - (moved.y + moved.height), side: width - (moved.x + moved.width) }).toEqual({
    bottom: 72,
    side: 8,
  });
  expect(overlap(moved, await box(imprint))).toBe(false);
  // The link takes a click again (Playwright clicks only what is on top at the link's middle).
  await imprint.click();
  await expect(page).toHaveURL(/#imprint$/);

  // The panel moves with it: 12 px above the launcher, flush with its side.
  await launcher.click();
  await expect(page.frameLocator('iframe').getByRole('textbox', { name: 'Message' })).toBeFocused();
  const panel = await box(page.locator('iframe'));
  expect({ bottom: panel.y + panel.height, right: panel.x + panel.width }).toEqual({
    bottom: moved.y - 12,
    right: moved.x + moved.width,
  });

  // In the dark, the accent's dark shade, as on the app's own page.
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = readAccent('#7e22ce');
  if (!dark.ok) throw new Error(dark.reason);
  await expect(launcher).toHaveCSS('background-color', hexToRgb(dark.shades.dark));
});
