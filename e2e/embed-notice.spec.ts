import type { Locator, Page } from '@playwright/test';
import { EMBED_FRAME_TIMEOUT_MS } from '../contract/embed';
import { FAKE_REPLY } from '../testing/fake-provider';
import { hostPageHtml } from '../testing/host-site';
import { expectNoAxeViolations } from './axe-check';
import { chatFrame, launcher, messageBox, resetProviderFixture } from './embed-site';
import { test as base, box, contrast, expect, luminance } from './fixtures';

// The loader's panel when its frame does not answer, and the host events a vote gives, against the production build
// and server (proxy mode). The notice waits EMBED_FRAME_TIMEOUT_MS of the page's clock, which the tests drive
// (`page.clock`): no test sleeps that long, and none races it.

const test = base.extend<{ resetProvider: undefined }>({ resetProvider: [...resetProviderFixture] });

// Run in proxy mode only (e2e/playwright.config.ts): the embed is checked against the proxy build.

const notice = (page: Page) => page.getByRole('alert');

/** Opens the panel on `address` (a host site the app refuses to be framed by) and lets the frame's time run out. */
async function showNotice(page: Page, address: string) {
  await page.clock.install();
  await page.goto(address);
  await expect(launcher(page)).toBeVisible();
  // From here the page's time moves only when the test says.
  await page.clock.pauseAt(Date.now() + 60_000);
  await launcher(page).click();
  await page.clock.runFor(EMBED_FRAME_TIMEOUT_MS);
  await expect(notice(page)).toBeVisible();
}

const styleOf = (locator: Locator) =>
  locator.evaluate((element) => {
    const style = getComputedStyle(element);
    return {
      color: style.color,
      background: style.backgroundColor,
      fontFamily: style.fontFamily,
      fontSize: style.fontSize,
      padding: style.padding,
      borderRadius: style.borderRadius,
      borderStyle: style.borderTopStyle,
    };
  });

test('a refused frame: the panel says so, links to the chat in a new tab, and closes', async ({
  page,
  foreignSite,
  embedApp,
}) => {
  await page.clock.install();
  await page.goto(foreignSite.page('/', hostPageHtml({ appOrigin: embedApp.origin, data: { lang: 'de' } })));
  await expect(launcher(page)).toBeVisible();
  // From here the page's time moves only when the test says.
  await page.clock.pauseAt(Date.now() + 60_000);
  const refused = page.waitForResponse((response) => response.url().startsWith(`${embedApp.origin}/?`));
  await launcher(page).click();
  await refused;
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'true');

  await page.clock.runFor(EMBED_FRAME_TIMEOUT_MS - 1);
  await expect(notice(page)).toBeHidden();
  await page.clock.runFor(1);
  // The loader's texts are the served loader's language (the browser's English here); the tag's `data-lang` goes on
  // to the chat.
  await expect(notice(page)).toContainText('The chat could not load.');
  await expect(page.locator('iframe')).toBeHidden();

  const link = page.getByRole('link', { name: 'Open it in a new tab' });
  const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  await expect(tab).toHaveURL(`${embedApp.origin}/?lang=de`);
  // Not in a frame, the site's FRAME_ANCESTORS does not apply: the chat is there, in the tag's language.
  await expect(tab.getByRole('textbox', { name: 'Nachricht' })).toBeEditable();
  await tab.close();

  await page.getByRole('button', { name: 'Close chat' }).click();
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
  await expect(launcher(page)).toBeFocused();
  await expect(notice(page)).toBeHidden();
});

for (const scheme of ['light', 'dark'] as const) {
  test(`the notice wears the panel's colours, font and spacing, and the accent on its button (${scheme})`, async ({
    page,
    foreignSite,
    embedApp,
  }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await showNotice(page, foreignSite.page('/', hostPageHtml({ appOrigin: embedApp.origin })));
    const panel = page.locator('dialog');
    const text = await styleOf(notice(page));
    const link = await styleOf(page.getByRole('link', { name: 'Open it in a new tab' }));
    const button = page.getByRole('button', { name: 'Close chat' });
    const close = await styleOf(button);
    const { background } = await styleOf(panel);

    // The panel's own background (the card's: white, or near-black in the dark), its text readable on it.
    expect(luminance(background) > 0.5, `panel ${background} in ${scheme}`).toBe(scheme === 'light');
    expect(contrast(text.color, background), `text ${text.color} on ${background}`).toBeGreaterThanOrEqual(7);
    // The link in the theme's blue, not the browser's default blue or purple, and readable (AA) in either scheme.
    expect(['rgb(0, 0, 238)', 'rgb(85, 26, 139)', 'rgb(158, 158, 255)', 'rgb(208, 173, 240)']).not.toContain(
      link.color,
    );
    expect(contrast(link.color, background), `link ${link.color} on ${background}`).toBeGreaterThanOrEqual(4.5);
    // The button is the launcher's: the accent behind the accent's text, with no browser border, a padding and corners.
    const launcherStyle = await styleOf(launcher(page));
    expect(close.background).toBe(launcherStyle.background);
    expect(close.color).toBe(launcherStyle.color);
    expect(close.borderStyle).toBe('none');
    expect(close.padding).not.toBe('0px');
    expect(close.borderRadius).not.toBe('0px');
    // One font for the notice and its button, the panel's sans-serif at the card's size (not the browser's serif, nor
    // its smaller button font).
    expect(text.fontFamily).not.toMatch(/Times/);
    expect(close.fontFamily).toBe(text.fontFamily);
    expect([text.fontSize, close.fontSize, link.fontSize]).toEqual(['16px', '16px', '16px']);
    // Spaced like the card: its text and button kept off the panel's edges, and apart from each other.
    const panelBox = await box(panel);
    // The notice's first line: its text node's box (the notice itself is as wide as the panel).
    const textBox = await notice(page).evaluate((element) => {
      const range = document.createRange();
      range.selectNode(element.firstChild as Node);
      return range.getBoundingClientRect().toJSON() as { x: number; y: number; height: number };
    });
    const buttonBox = await box(button);
    expect(textBox.x - panelBox.x, 'space left of the text').toBeGreaterThanOrEqual(12);
    expect(textBox.y - panelBox.y, 'space above the text').toBeGreaterThanOrEqual(12);
    expect(buttonBox.y - (textBox.y + textBox.height), 'space above the button').toBeGreaterThanOrEqual(8);
    // axe waits on the page's timers: the clock runs again.
    await page.clock.resume();
    await expectNoAxeViolations(page, `on the host page with the panel's notice, ${scheme}`);
  });
}

test('a frame that answers shows no notice, however long the panel stays open', async ({ page, site, embedApp }) => {
  await page.clock.install();
  await page.goto(site.page('/', hostPageHtml({ appOrigin: embedApp.origin })));
  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
  await page.clock.runFor(EMBED_FRAME_TIMEOUT_MS * 2);
  await expect(notice(page)).toHaveCount(0);
  await expect(messageBox(page)).toBeVisible();
});

test("a vote in the frame is the host page's `feedback` event, with its rating and reason", async ({
  page,
  site,
  embedApp,
}) => {
  await page.goto(site.page('/', hostPageHtml({ appOrigin: embedApp.origin })));
  await expect(launcher(page)).toBeVisible();
  await page.evaluate(() => {
    const heard: unknown[] = [];
    Object.assign(window, { heard });
    const api = (window as unknown as { AIAssistant: { on(name: string, handler: (event: Event) => void): void } })
      .AIAssistant;
    api.on('feedback', (event) => heard.push({ type: event.type, ...(event as CustomEvent).detail }));
  });
  const heard = () => page.evaluate(() => (window as unknown as { heard: unknown[] }).heard);

  await launcher(page).click();
  // The app has taken the card over when it focuses the box (a send before that is the served card's business, tested
  // in embed.spec.ts).
  await expect(messageBox(page)).toBeFocused();
  await messageBox(page).fill('Hello');
  await messageBox(page).press('Enter');
  const frame = chatFrame(page);
  await expect(frame.locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);
  await frame.getByRole('button', { name: 'Helpful', exact: true }).click();
  await expect.poll(heard).toEqual([{ type: 'feedback', rating: 'up' }]);
  await frame.getByRole('button', { name: 'Not helpful' }).click();
  await frame.getByRole('group', { name: 'What was wrong?' }).getByRole('button', { name: 'Out of date' }).click();
  await expect.poll(heard).toEqual([
    { type: 'feedback', rating: 'up' },
    { type: 'feedback', rating: 'down' },
    { type: 'feedback', rating: 'down', reason: 'outdated' },
  ]);
});
