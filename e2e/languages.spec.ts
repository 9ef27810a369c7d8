import type { Locator, Page } from '@playwright/test';
import { CATALOGUES } from '../locales/catalogues';
import { LANGUAGES } from '../locales/languages';
import { launcherName } from '../server/pages/page-html';
import { FAKE_REPLY } from '../testing/fake-provider';
import { type HostSite, hostPageHtml } from '../testing/host-site';
import { expectNoAxeViolations } from './axe-check';
import { ChatPage, ERROR, expect, hydrated, PLACEHOLDER, SENDING_PLACEHOLDER, test } from './fixtures';

// The card in the visitor's language, against the production build and server. The language is chosen per request
// by the server, so it does not depend on how the page reaches the model: checked in proxy mode only.

// Run in proxy mode only (e2e/playwright.config.ts).

test.describe('with the browser in German', () => {
  test.use({ locale: 'de-DE' });

  test('the card, its states and the error are German, the page is lang="de", and hydration changes nothing', async ({
    browser,
    page,
    fake,
    baseURL,
  }) => {
    // As served, before any script: already German.
    const staticContext = await browser.newContext({ javaScriptEnabled: false, baseURL, locale: 'de-DE' });
    const staticPage = await staticContext.newPage();
    await staticPage.goto('/');
    await expect(staticPage.getByRole('heading', { level: 1, name: 'KI-Assistent' })).toBeVisible();
    await expect(staticPage.getByRole('textbox', { name: 'Nachricht' })).toHaveAttribute(
      'placeholder',
      'Ihre Nachricht hier',
    );
    const servedTree = await staticPage.locator('body').ariaSnapshot();
    await staticContext.close();

    const chat = new ChatPage(page);
    await page.goto('/');
    await hydrated(page);
    expect(await page.locator('body').ariaSnapshot()).toBe(servedTree);
    expect(chat.consoleErrors, 'no hydration mismatch or other error').toEqual([]);
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
    await expect(page).toHaveTitle('KI-Assistent');

    const input = page.getByRole('textbox', { name: 'Nachricht' });
    const send = page.getByRole('button', { name: 'Senden', exact: true });
    await expect(input).toHaveAttribute('placeholder', 'Ihre Nachricht hier');
    await expect(send).toBeEnabled();

    fake.respondWith({ hold: true });
    await input.fill('Hallo');
    await send.click();
    await expect(input).toHaveAttribute('placeholder', 'Wird gesendet...');
    await expect(input).toBeDisabled();
    await expect(send).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Stopp', exact: true })).toBeVisible();
    await expect.poll(() => fake.heldCount).toBe(1);

    fake.release({ status: 500 });
    const log = page.getByRole('log', { name: 'Unterhaltung' });
    await expect(log.locator('[data-sender="bot"]')).toHaveText('Fehler: Antwort konnte nicht abgerufen werden');
    await expect(log).not.toContainText(ERROR);
    await expect(page.getByRole('button', { name: 'Erneut versuchen', exact: true })).toBeVisible();
    await expect(input).toHaveAttribute('placeholder', 'Ihre Nachricht hier');
    expect(chat.pageErrors).toEqual([]);
  });

  test('only the German catalogue reaches the page', async ({ page, fake: _fake }) => {
    const bodies: Promise<string>[] = [];
    page.on('response', (response) => {
      if (/\.(?:html|js)$|\/$/.test(new URL(response.url()).pathname)) bodies.push(response.text());
    });
    await page.goto('/');
    await hydrated(page);
    // The lazy chunks too, fetched once the page is idle.
    await page.waitForLoadState('networkidle');
    const everything = (await Promise.all(bodies)).join('\n');
    expect(everything).toMatch(/rich-reply-/);
    expect(everything).toContain('Ihre Nachricht hier');
    for (const language of LANGUAGES.filter((other) => other !== 'de')) {
      expect(everything, `the ${language} placeholder`).not.toContain(CATALOGUES[language].placeholder);
    }
  });

  test('names its launcher and its frame in German, and opens the card in German', async ({
    page,
    site,
    embedApp,
    provider,
  }) => {
    provider.reset();
    await page.goto(site.page('/', hostPageHtml({ appOrigin: embedApp.origin, data: {} })));
    await page.getByRole('button', { name: launcherName('de') }).click();
    const frame = page.frameLocator(`iframe[title="${CATALOGUES.de.frameTitle}"]`);
    await expect(frame.locator('input[name="message"]')).toBeFocused();
    await expect(frame.locator('html')).toHaveAttribute('lang', 'de');
  });
});

test.describe('with the browser in English', () => {
  test.use({ locale: 'en-US' });

  test('every text is the specification’s, and the page is lang="en"', async ({ chat, page, fake }) => {
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page).toHaveTitle('AI Assistant');
    await expect(page.getByRole('heading', { level: 1, name: 'AI Assistant', exact: true })).toBeVisible();
    await chat.expectIdle();
    await expect(chat.sendButton).toHaveText('Send');

    fake.respondWith({ hold: true });
    await chat.sendWithClick('Hi');
    await chat.expectSending();
    await expect(chat.stopButton).toBeVisible();
    await expect(chat.slowHint).toHaveText('Still working on a reply… You can stop it with Stop or Escape.');
    fake.release({ status: 500 });
    await chat.expectTranscript([
      { sender: 'user', text: 'Hi' },
      { sender: 'bot', text: ERROR },
    ]);
    await expect(chat.retryButton).toBeVisible();
    await expect(chat.input).toHaveAttribute('placeholder', PLACEHOLDER);
    fake.respondWith({ json: { choices: [] } });
    await chat.retryButton.click();
    await chat.expectTranscript([
      { sender: 'user', text: 'Hi' },
      { sender: 'bot', text: 'No response received' },
    ]);
    expect(SENDING_PLACEHOLDER).toBe('Sending...');
  });
});

/** Opens the host page with the snippet and opens the chat; returns the frame. */
async function openEmbed(page: Page, site: HostSite, appOrigin: string, data: Record<string, string>) {
  await page.goto(site.page('/', hostPageHtml({ appOrigin, data })));
  await page.getByRole('button', { name: 'Chat with AI Assistant' }).click();
  const frame = page.frameLocator('iframe[title="AI Assistant chat"]');
  await expect(frame.locator('input[name="message"]')).toBeFocused();
  return frame;
}

test('an embed with data-lang="ar" is right to left, the visitor on the left, and passes axe', async ({
  page,
  site,
  embedApp,
  provider,
}) => {
  provider.reset();
  const frame = await openEmbed(page, site, embedApp.origin, { lang: 'ar', position: 'right' });
  await expect(frame.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(frame.locator('html')).toHaveAttribute('lang', 'ar');
  const input = frame.getByRole('textbox', { name: 'الرسالة' });
  await expect(input).toHaveAttribute('placeholder', 'اكتب رسالتك هنا');

  // The box, then Send, in reading order: Send on the box's left.
  const send = frame.getByRole('button', { name: 'إرسال', exact: true });
  const [inputBox, sendBox] = [await input.boundingBox(), await send.boundingBox()];
  if (!inputBox || !sendBox) throw new Error('the composer is not laid out');
  expect(sendBox.x + sendBox.width, 'Send ends before the box starts').toBeLessThanOrEqual(inputBox.x);

  await input.fill('Hello');
  await send.click();
  const log = frame.getByRole('log', { name: 'المحادثة' });
  await expect(log.locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);
  const list = await log.boundingBox();
  const user = await log.locator('[data-sender="user"]').boundingBox();
  const bot = await log.locator('[data-sender="bot"]').boundingBox();
  if (!list || !user || !bot) throw new Error('the conversation is not laid out');
  const middle = list.x + list.width / 2;
  expect(user.x + user.width, "the visitor's bubble right edge").toBeLessThan(middle);
  expect(user.x - list.x, "gap left of the visitor's bubble").toBeLessThan(24);
  expect(bot.x + bot.width, "the bot's bubble right edge").toBeGreaterThan(middle);
  expect(list.x + list.width - (bot.x + bot.width), "gap right of the bot's bubble").toBeLessThan(24);
  // The Latin reply in an Arabic page reads left to right in its own bubble.
  await expect(log.locator('[data-sender="bot"]')).toHaveAttribute('dir', 'auto');
  expect(await log.locator('[data-sender="bot"]').evaluate((bubble) => getComputedStyle(bubble).direction)).toBe('ltr');

  // The site owner's side stays: the panel by the launcher on the right.
  const panel = await page.locator('iframe').boundingBox();
  const viewport = page.viewportSize();
  if (!panel || !viewport) throw new Error('the panel is not laid out');
  expect(viewport.width - (panel.x + panel.width)).toBeLessThan(40);

  await expectNoAxeViolations(page, 'in Arabic, with a reply');
});

test('an embed with data-lang="xx" (no catalogue) is English', async ({ page, site, embedApp, provider }) => {
  provider.reset();
  const frame = await openEmbed(page, site, embedApp.origin, { lang: 'xx' });
  await expect(frame.locator('html')).toHaveAttribute('lang', 'en');
  await expect(frame.locator('html')).toHaveAttribute('dir', 'ltr');
  await expect(frame.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', PLACEHOLDER);
  await expect(frame.getByRole('button', { name: 'Send', exact: true })).toBeVisible();
});

/** Whether `selector`'s text fits its box and the box fits the viewport: neither clipped nor overflowing. */
function fits(element: Locator) {
  return element.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    return {
      text: element.textContent,
      overflow: element.scrollWidth - element.clientWidth,
      overflowY: element.scrollHeight - element.clientHeight,
      left: rect.left,
      right: document.documentElement.clientWidth - rect.right,
    };
  });
}

/** The placeholder's width in the input's font, against the room for text inside the input. */
function placeholderRoom(page: Page) {
  return page.locator('input[name="message"]').evaluate((input: HTMLInputElement) => {
    const style = getComputedStyle(input);
    const context = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
    context.font = style.font;
    const room = input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
    return { placeholder: input.placeholder, room: room - context.measureText(input.placeholder).width };
  });
}

async function expectFits(element: Locator, what: string) {
  const found = await fits(element);
  expect(found.overflow, `${what} "${found.text}" overflows sideways`).toBeLessThanOrEqual(0);
  expect(found.overflowY, `${what} "${found.text}" overflows downwards`).toBeLessThanOrEqual(0);
  expect(found.left, `${what} "${found.text}" sticks out on the left`).toBeGreaterThanOrEqual(0);
  expect(found.right, `${what} "${found.text}" sticks out on the right`).toBeGreaterThanOrEqual(0);
}

test.describe('at 320 px', () => {
  test.use({ viewport: { width: 320, height: 640 } });

  for (const language of LANGUAGES) {
    test(`${language}: placeholder, Send, Stop, Retry and the slow hint fit`, async ({ page, fake }) => {
      const texts = CATALOGUES[language];
      await page.goto(`/?lang=${language}`);
      await hydrated(page);
      const input = page.locator('input[name="message"]');
      const send = page.locator('form button[type="submit"]');
      await expect(send).toHaveText(texts.send);
      expect((await placeholderRoom(page)).room, `the placeholder "${texts.placeholder}"`).toBeGreaterThanOrEqual(0);
      await expectFits(send, 'Send');

      fake.respondWith({ hold: true });
      await input.fill('Hi');
      await send.click();
      await expect(input).toHaveAttribute('placeholder', texts.sending);
      expect((await placeholderRoom(page)).room, `the placeholder "${texts.sending}"`).toBeGreaterThanOrEqual(0);
      const stop = page.getByRole('button', { name: texts.stop, exact: true });
      const hint = page.getByText(texts.slowHint, { exact: true });
      await expect(hint).toBeVisible();
      await expectFits(stop, 'Stop');
      await expectFits(hint, 'The slow hint');

      await stop.click();
      const retry = page.getByRole('button', { name: texts.retry, exact: true });
      await expect(retry).toBeVisible();
      await expectFits(retry, 'Retry');
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        'the page scrolls sideways',
      ).toBeLessThanOrEqual(0);
    });
  }
});
