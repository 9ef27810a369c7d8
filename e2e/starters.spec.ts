import { fileURLToPath } from 'node:url';
import type { FrameLocator, Locator, Page } from '@playwright/test';
import { hostPageHtml } from '../testing/host-site';
import { configuredAppFixture } from './embed-site';
import { test as base, expect, hydrated } from './fixtures';

// Starters of the longest length allowed (e2e/long-starters.yaml), on the production build and server: each shows whole,
// wrapped inside its button, on the narrowest phones, on the desktop card and in the embed, in English and in French.

const CONFIG = fileURLToPath(new URL('./long-starters.yaml', import.meta.url));
const STARTERS = [
  'Can I return a spade bought online to a shop near me, and how long will it take?',
  'Puis-je rendre en magasin une bêche achetée en ligne, et sous quel délai exact\u00a0?',
  'What does https://acme-garden-tools.example/returns-and-exchanges/spades say?',
];

const test = base.extend<{ startersApp: { origin: string } }>({
  startersApp: [...configuredAppFixture(CONFIG)],
});

// Run in proxy mode only (e2e/playwright.config.ts): the site configuration is checked against the proxy build.

/**
 * Every starter lies inside the card, shows all of its text (nothing scrolled away inside the button), reads from the
 * start of its lines, and the row wraps: a long starter takes a line of its own.
 */
async function expectStartersWhole(scope: Page | FrameLocator, card: Locator) {
  const buttons = STARTERS.map((text) => scope.getByRole('button', { name: text }));
  const cardBox = await card.boundingBox();
  if (!cardBox) throw new Error('the card is not laid out');
  const tops: number[] = [];
  for (const [index, button] of buttons.entries()) {
    await expect(button).toHaveText(STARTERS[index]);
    const box = await button.boundingBox();
    if (!box) throw new Error(`starter ${index} is not laid out`);
    expect(box.x, `starter ${index} starts inside the card`).toBeGreaterThanOrEqual(cardBox.x);
    expect(box.x + box.width, `starter ${index} ends inside the card`).toBeLessThanOrEqual(cardBox.x + cardBox.width);
    const fit = await button.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
      align: getComputedStyle(element).textAlign,
    }));
    expect(fit.scroll, `starter ${index} is not clipped`).toBeLessThanOrEqual(fit.client);
    expect(fit.align).toBe('start');
    tops.push(box.y);
  }
  expect(new Set(tops).size, 'each long starter on a line of its own').toBe(STARTERS.length);
}

for (const width of [320, 375]) {
  for (const language of ['en', 'fr'] as const) {
    test(`at ${width} px, in ${language === 'en' ? 'English' : 'French'}, every starter shows whole`, async ({
      page,
      startersApp,
    }) => {
      await page.setViewportSize({ width, height: 720 });
      await page.goto(`${startersApp.origin}/${language === 'en' ? '' : `?lang=${language}`}`);
      await expect(page.locator('html')).toHaveAttribute('lang', language);
      await hydrated(page);
      await expectStartersWhole(page, page.getByRole('main'));
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    });
  }
}

test('on the desktop card, in French, every starter shows whole', async ({ page, startersApp }) => {
  await page.goto(`${startersApp.origin}/?lang=fr`);
  await hydrated(page);
  await expectStartersWhole(page, page.getByRole('main'));
});

test('in the embed on a phone, in French, every starter shows whole', async ({ page, site, startersApp }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  await page.goto(site.page('/starters', hostPageHtml({ appOrigin: startersApp.origin, data: { lang: 'fr' } })));
  await page.locator('ai-assistant-embed').getByRole('button').click();
  const frame = page.frameLocator('iframe');
  await expect(frame.getByRole('button', { name: 'Fermer le chat' })).toBeVisible();
  await expectStartersWhole(frame, frame.getByRole('main'));
});
