import type { Page } from '@playwright/test';
import { OWNER_PAGE_PATH } from '../contract/owner';
import { startReturnsSite } from './app-server';
import { expectNoAxeViolations } from './axe-check';
import { test as base, expect } from './fixtures';

// The owner's page (/owner) against the production build and server (proxy mode: the counts are the server's), after
// a visitor's vote: the token field, a wrong token's 401 said plainly, then the charts and figures in light and dark.

const OWNER_TOKEN = 'test-owner-token-not-a-real-one-4c1d';
const PAGE_ADDRESS = 'https://shop.example/returns';

const test = base.extend<object, { ownerApp: { url: string } }>({
  ownerApp: [
    async ({ provider }, use) => {
      const config = 'knowledge:\n  - path: ./docs\n    url: https://shop.example/\n';
      const server = await startReturnsSite(provider.baseURL, config, { OWNER_TOKEN });
      await use({ url: server.url });
      await server.close();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ ownerApp }, use) => {
    await use(ownerApp.url);
  },
});

test.skip(({ mode }) => mode !== 'proxy', 'the counts are the page’s own server’s: proxy mode only');

/** The page's background as painted. */
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test('the owner page: a wrong token is a plain 401, then the charts and figures, in light and dark, axe-clean', async ({
  chat,
  fake,
  page,
}) => {
  fake.respondWith({ content: 'Yes, within thirty days [1].' });
  await chat.markdownLoaded();
  await chat.sendWithEnter('Can I return a rake?');
  await chat.expectReadyAfterReply();
  const voted = page.waitForResponse((response) => response.url().endsWith('/api/feedback'));
  await page.getByRole('button', { name: 'Not helpful' }).click();
  expect((await voted).status()).toBe(204);
  const reasoned = page.waitForResponse((response) => response.url().endsWith('/api/feedback'));
  await page.getByRole('button', { name: 'Out of date' }).click();
  expect((await reasoned).status()).toBe(204);

  await page.goto(OWNER_PAGE_PATH);
  await expect(page).toHaveTitle('Assistant statistics');
  const field = page.getByLabel('Owner token');
  await expectNoAxeViolations(page, 'on the owner page before a token');

  // By keyboard only: the field, a wrong token, Enter.
  await field.focus();
  await page.keyboard.type(`${OWNER_TOKEN}-wrong`);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText(/owner token is wrong \(401\)/);
  await expect(page.locator('figure')).toHaveCount(0);
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

  await field.fill(OWNER_TOKEN);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Show' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText('');
  const messages = page.getByRole('region', { name: 'Messages' });
  await expect(messages.locator('figcaption')).toHaveText(/Messages per day, the last 30 days\. 1 in all/);
  await expect(page.locator('figure canvas')).toHaveCount(2);
  await expect(page.getByRole('region', { name: 'Answered from the site’s pages' })).toContainText('100% of replies');
  const votes = page.getByRole('region', { name: 'Helpful and Not helpful' });
  await expect(votes.getByRole('row', { name: 'Not helpful 1' })).toBeVisible();
  await expect(votes.getByRole('row', { name: 'Out of date 1' })).toBeVisible();
  await expect(
    page.getByRole('region', { name: 'Pages with the most Not helpful' }).getByRole('link', { name: PAGE_ADDRESS }),
  ).toHaveAttribute('href', PAGE_ADDRESS);
  await expect(page.getByRole('region', { name: 'Questions the pages did not cover' }).locator('canvas')).toBeVisible();
  const light = await background(page);
  await expectNoAxeViolations(page, 'on the owner page with its charts, light');

  // Dark: the page's colours and the charts drawn again in them.
  const chart = page.locator('figure canvas').first();
  const lightCanvas = await chart.elementHandle();
  const lightChart = await chart.screenshot();
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(() => background(page)).not.toBe(light);
  // The charts are drawn again in new canvases once the page hears of the change: the light one leaves the page first.
  await expect.poll(() => lightCanvas.evaluate((canvas) => canvas.isConnected)).toBe(false);
  await expect(page.locator('figure canvas')).toHaveCount(2);
  expect((await chart.screenshot()).equals(lightChart)).toBe(false);
  await expectNoAxeViolations(page, 'on the owner page with its charts, dark');

  // Kept for the tab's session: a reload shows the figures without asking again.
  await page.reload();
  await expect(page.locator('figure canvas')).toHaveCount(2);
  expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
});
