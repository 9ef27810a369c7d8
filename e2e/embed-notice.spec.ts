import type { Page } from '@playwright/test';
import { EMBED_FRAME_TIMEOUT_MS } from '../contract/embed';
import { FAKE_REPLY } from '../testing/fake-provider';
import { type HostSite, hostPageHtml } from '../testing/host-site';
import { chatFrame, embedAppFixture, hostSiteFixture, launcher, messageBox, resetProviderFixture } from './embed-site';
import { test as base, expect } from './fixtures';

// The loader's panel when its frame does not answer, and the host events a vote gives, against the production build
// and server (proxy mode). The notice waits EMBED_FRAME_TIMEOUT_MS of the page's clock, which the tests drive
// (`page.clock`): no test sleeps that long, and none races it.

const test = base.extend<
  { resetProvider: undefined },
  { site: HostSite; foreignSite: HostSite; embedApp: { origin: string; output: string[] } }
>({
  site: [...hostSiteFixture],
  foreignSite: [...hostSiteFixture],
  embedApp: [...embedAppFixture],
  resetProvider: [...resetProviderFixture],
});

test.skip(({ mode }) => mode !== 'proxy', 'the embed is checked against the proxy build');

const notice = (page: Page) => page.getByRole('alert');

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
