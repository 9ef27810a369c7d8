import { fileURLToPath } from 'node:url';
import type { Frame, Page } from '@playwright/test';
import { EMBED_LANG_PARAM } from '../contract/embed';
import { CATALOGUES } from '../locales/catalogues';
import { FAKE_REPLY } from '../testing/fake-provider';
import { type HostSite, hostPageHtml } from '../testing/host-site';
import { callApi, chatFrame, configuredAppFixture, launcher, messageBox, resetProviderFixture } from './embed-site';
import { test as base, box, expect, holdRoute, hydrated } from './fixtures';

// The conversation that follows the visitor across a host site's pages (`persist: tab`), the host page as context
// (`page_context`), a host with a strict CSP, and a chat that scrolls alone: against the production build and server
// (proxy mode) in Chromium, with a host site of several pages on another origin.

const QUESTION = 'Do you ship spades to Norway?';
const KEPT_KEY = 'ai-assistant-conversation';

const test = base.extend<{
  /** The app with `persist: tab` and `page_context: true` (e2e/persist-config.yaml). */
  keepingApp: { url: string; origin: string; output: string[] };
  resetProvider: undefined;
}>({
  keepingApp: [...configuredAppFixture(fileURLToPath(new URL('./persist-config.yaml', import.meta.url)))],
  resetProvider: [...resetProviderFixture],
});

// Run in proxy mode only (e2e/playwright.config.ts): the embed is checked against the proxy build.

const said = (page: Page) => chatFrame(page).getByRole('log', { name: 'Conversation' }).locator('[data-sender]');

/** The site's pages: each carries the snippet of `appOrigin`. */
function sitePages(site: HostSite, appOrigin: string) {
  for (const path of ['/', '/spades', '/rakes']) site.page(path, hostPageHtml({ appOrigin }));
  return (path: string) => `${site.origin}${path}`;
}

/** The chat's frame, once the panel has loaded it. */
async function appFrame(page: Page, appOrigin: string): Promise<Frame> {
  await expect.poll(() => page.frames().some((frame) => frame.url().startsWith(appOrigin))).toBe(true);
  return page.frames().find((frame) => frame.url().startsWith(appOrigin)) as Frame;
}

/** Every storage both origins hold, as text: the host page's and the frame's. */
async function storedText(page: Page, appOrigin: string) {
  const dump = () => JSON.stringify([{ ...sessionStorage }, { ...localStorage }, document.cookie]);
  return (await page.evaluate(dump)) + (await (await appFrame(page, appOrigin)).evaluate(dump));
}

/**
 * Waits until the app has taken the served card over (its header has the close button): the served card is editable
 * and empty from the first, so what the app restored, or did not, shows only then.
 */
const takenOver = (page: Page) => expect(chatFrame(page).getByRole('button', { name: 'Close chat' })).toBeVisible();

/** Sends `text` once the app has taken the served card over (its header has the close button): typing while it is
 * taken over is embed.spec.ts's subject, not this file's. */
async function send(page: Page, text: string) {
  await takenOver(page);
  await messageBox(page).fill(text);
  await messageBox(page).press('Enter');
}

async function converse(page: Page, text = QUESTION) {
  await send(page, text);
  await expect(said(page)).toHaveText([text, FAKE_REPLY]);
}

test('with no configuration a page change starts an empty conversation, and no storage holds any of it', async ({
  page,
  site,
  embedApp,
}) => {
  const at = sitePages(site, embedApp.origin);
  await page.goto(at('/'));
  await launcher(page).click();
  await converse(page);
  expect(await storedText(page, embedApp.origin)).not.toContain('Norway');

  await page.goto(at('/spades'));
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
  await launcher(page).click();
  await takenOver(page);
  await expect(messageBox(page)).toBeEditable();
  await expect(said(page)).toHaveCount(0);
  expect(await storedText(page, embedApp.origin)).not.toContain('Norway');
  await expect(chatFrame(page).getByRole('button', { name: 'New conversation' })).toHaveCount(0);
});

test('with persist: tab the panel and the whole conversation follow page changes and reloads, not another tab', async ({
  page,
  site,
  keepingApp,
}) => {
  const at = sitePages(site, keepingApp.origin);
  await page.goto(at('/'));
  await launcher(page).click();
  await converse(page);

  await page.goto(at('/spades'));
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'true');
  await expect(said(page)).toHaveText([QUESTION, FAKE_REPLY]);
  // Reopened by itself, the panel leaves the focus with the host page.
  expect(await page.evaluate(() => document.activeElement?.localName)).not.toBe('ai-assistant-embed');

  await page.reload();
  await expect(said(page)).toHaveText([QUESTION, FAKE_REPLY]);
  expect(await page.evaluate(() => ({ ...localStorage }))).toEqual({});

  const other = await page.context().newPage();
  await other.goto(at('/rakes'));
  await expect(launcher(other)).toHaveAttribute('aria-expanded', 'false');
  await launcher(other).click();
  await takenOver(other);
  await expect(messageBox(other)).toBeEditable();
  await expect(said(other)).toHaveCount(0);
  await other.close();

  // Closed on one page, closed on the next (once the panel has closed: the frame asks the loader by a message).
  await chatFrame(page).getByRole('button', { name: 'Close chat' }).click();
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
  await page.goto(at('/rakes'));
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
});

test('a reply cut off by a page change keeps the message, shows what had arrived stopped, and the box works', async ({
  page,
  site,
  keepingApp,
  provider,
}) => {
  const at = sitePages(site, keepingApp.origin);
  provider.queue({ openStream: true });
  await page.goto(at('/'));
  await launcher(page).click();
  await send(page, QUESTION);
  await expect.poll(() => provider.streams.length).toBe(1);
  provider.streams[0].piece('Yes, we ship');
  await expect(said(page)).toHaveText([QUESTION, 'Yes, we ship']);

  await page.goto(at('/spades'));
  await expect(said(page)).toHaveText([QUESTION, 'Yes, we ship']);
  await expect(chatFrame(page).getByText('Reply stopped')).toBeVisible();
  await expect(messageBox(page)).toBeEditable();
  await chatFrame(page).getByRole('button', { name: 'Retry' }).click();
  await expect(said(page)).toHaveText([QUESTION, FAKE_REPLY]);
});

test('where the host page refuses storage, persist: tab still opens, closes and reopens the chat, with no error', async ({
  page,
  site,
  keepingApp,
}) => {
  // As a browser that blocks the site's storage does: reading or writing `sessionStorage` throws.
  await page.addInitScript((origin) => {
    if (location.origin !== origin) return;
    Object.defineProperty(window, 'sessionStorage', {
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
  }, site.origin);
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  const at = sitePages(site, keepingApp.origin);
  await page.goto(at('/'));
  await launcher(page).click();
  await converse(page);
  await callApi(page, 'close');
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
  await callApi(page, 'open');
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'true');
  await expect(messageBox(page)).toBeFocused();
  expect(errors.map(String)).toEqual([]);
});

test('corrupt stored data is dropped with a warning; "New conversation" clears, and it stays clear', async ({
  page,
  site,
  keepingApp,
}) => {
  const at = sitePages(site, keepingApp.origin);
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning') warnings.push(message.text());
  });
  await page.goto(at('/'));
  await launcher(page).click();
  await converse(page);
  await (await appFrame(page, keepingApp.origin)).evaluate((key) => sessionStorage.setItem(key, '{"v":1,'), KEPT_KEY);

  await page.goto(at('/spades'));
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'true');
  await takenOver(page);
  await expect(messageBox(page)).toBeEditable();
  await expect(said(page)).toHaveCount(0);
  await expect.poll(() => warnings.some((text) => text.includes('kept conversation could not be read'))).toBe(true);
  await converse(page, 'Rakes?');

  await chatFrame(page).getByRole('button', { name: 'New conversation' }).click();
  await expect(said(page)).toHaveCount(0);
  await expect(chatFrame(page).getByRole('button', { name: 'New conversation' })).toHaveCount(0);
  await page.goto(at('/rakes'));
  await takenOver(page);
  await expect(messageBox(page)).toBeEditable();
  await expect(said(page)).toHaveCount(0);
  expect(await storedText(page, keepingApp.origin)).not.toContain('Rakes?');
});

test('with page_context the model gets the path and title, never the query or fragment; without it nothing', async ({
  page,
  site,
  keepingApp,
  embedApp,
  provider,
}) => {
  const html = (appOrigin: string) =>
    hostPageHtml({ appOrigin }).replace(
      '<title>A shop that embeds the assistant</title>',
      '<title>Steel spade</title>',
    );
  await page.goto(`${site.page('/tools/spade', html(keepingApp.origin))}?token=SECRET-TOKEN#mail=visitor@example.com`);
  await launcher(page).click();
  await converse(page);
  const [system] = (provider.requests[0].body as { messages: { role: string; content: string }[] }).messages;
  expect(system.role).toBe('system');
  expect(system.content).toContain(`"address":"${site.origin}/tools/spade"`);
  expect(system.content).toContain('"title":"Steel spade"');
  expect(JSON.stringify(provider.requests[0].body)).not.toMatch(/SECRET-TOKEN|visitor@example/);

  // Another tab: this one's loader keeps the first app's open panel.
  const other = await page.context().newPage();
  await other.goto(`${site.page('/tools/rake', html(embedApp.origin))}?token=SECRET-TOKEN`);
  await launcher(other).click();
  await converse(other);
  expect((provider.requests[1].body as { messages: unknown[] }).messages).toEqual([
    { role: 'user', content: QUESTION },
  ]);
});

test('a strict nonce-CSP host page draws the launcher and converses, with no CSP violation at all', async ({
  page,
  site,
  embedApp,
}) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { violations: string[] }).violations ??= [];
      (window as unknown as { violations: string[] }).violations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const nonce = 'c3RyaWN0LWhvc3Q';
  const url = site.page(
    '/strict',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A strict shop</title>
<style nonce="${nonce}">body{font-family:serif}</style></head>
<body><main><h1>Garden tools</h1></main><script nonce="${nonce}" src="${embedApp.origin}/embed.js" async></script></body></html>`,
    {
      'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}' 'strict-dynamic'; style-src 'nonce-${nonce}'; frame-src ${embedApp.origin}; base-uri 'none'`,
    },
  );
  await page.goto(url);
  await expect(launcher(page)).toBeVisible();
  const look = await launcher(page).evaluate((button) => {
    const style = getComputedStyle(button);
    return { width: `${button.getBoundingClientRect().width}px`, radius: style.borderRadius, position: style.position };
  });
  expect(look).toEqual({ width: '56px', radius: '50%', position: 'fixed' });
  await launcher(page).click();
  await converse(page);
  const frame = await appFrame(page, embedApp.origin);
  const recorded = async (target: Page | Frame) =>
    target.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []);
  expect([...(await recorded(page)), ...(await recorded(frame)), ...violations]).toEqual([]);
});

test('a wheel over the open chat, at either end of the conversation, never scrolls the host page', async ({
  page,
  site,
  embedApp,
}) => {
  await page.goto(site.page('/tall', hostPageHtml({ appOrigin: embedApp.origin, css: 'main{height:6000px}' })));
  await launcher(page).click();
  await converse(page);
  const log = chatFrame(page).getByRole('log', { name: 'Conversation' });
  const heading = chatFrame(page).getByRole('heading');
  for (const target of [log, heading]) {
    const area = await box(target);
    await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2);
    // Down past the conversation's end, then up past its start: the host page stays at the top both ways.
    for (const deltaY of [400, -400]) {
      for (let step = 0; step < 8; step += 1) await page.mouse.wheel(0, deltaY);
      // Each wheel is handled by a frame of its own: two more frames for the last.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
    }
  }
});

test("with persist: tab the assistant's own page keeps the conversation through a reload, and clears it", async ({
  page,
  keepingApp,
}) => {
  await page.goto(keepingApp.url);
  const own = page.getByRole('log', { name: 'Conversation' }).locator('[data-sender]');
  await page.getByRole('textbox', { name: 'Message' }).fill(QUESTION);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(own).toHaveText([QUESTION, FAKE_REPLY]);
  await page.reload();
  await expect(own).toHaveText([QUESTION, FAKE_REPLY]);
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(own).toHaveCount(0);
  await page.reload();
  await hydrated(page);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEditable();
  await expect(own).toHaveCount(0);
  expect(await page.evaluate(() => JSON.stringify([{ ...sessionStorage }, { ...localStorage }]))).not.toContain(
    'Norway',
  );
});

test('a reply that failed on a German page keeps its Retry when the next page of the tab is English', async ({
  page,
  keepingApp,
  provider,
}) => {
  // The server chooses each page's language from its request: here the embed's `lang` (a host page in German), then
  // the browser's (English). The conversation is named in each page's language: found here by its role alone.
  const own = page.getByRole('log').locator('[data-sender]');
  await page.goto(`${keepingApp.url}?${EMBED_LANG_PARAM}=de`);
  provider.queue({ status: 500 });
  await page.getByRole('textbox', { name: 'Nachricht' }).fill(QUESTION);
  await page.getByRole('textbox', { name: 'Nachricht' }).press('Enter');
  await expect(own).toHaveText([QUESTION, CATALOGUES.de.error]);
  await expect(page.getByRole('button', { name: CATALOGUES.de.retry })).toBeEnabled();

  await page.goto(keepingApp.url);
  await hydrated(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(own).toHaveText([QUESTION, CATALOGUES.de.error]);
  await expect(page.getByRole('button', { name: 'Copy reply' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(own).toHaveText([QUESTION, FAKE_REPLY]);
});

test("on the assistant's own page with persist: tab, the box the visitor types in keeps the focus as the app replaces it", async ({
  page,
  keepingApp,
}) => {
  // The app replaces the served card once the kept conversation's code is in: held, the visitor is typing meanwhile.
  const release = await holdRoute(page, '**/assets/persist-tab-*.js');
  await page.goto(keepingApp.url);
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.click();
  await page.keyboard.type('Do you ship');
  release();
  await hydrated(page);
  await expect(input).toBeFocused();
  await page.keyboard.type(' spades?');
  await expect(input).toHaveValue('Do you ship spades?');
});
