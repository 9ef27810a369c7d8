import type { Locator, Page } from '@playwright/test';
import type { Stats, StatsCounts } from '../contract/feedback';
import { OWNER_PAGE_PATH } from '../contract/owner';
import { statsCounts as counts } from '../testing/stats-counts.ts';
import { startReturnsSite } from './app-server';
import { expectNoAxeViolations } from './axe-check';
import { test as base, box, expect, SERVER_START } from './fixtures';

// The owner's page (/owner) against the production build and server (proxy mode: the counts are the server's), after
// a visitor's vote: the token field, a wrong token's 401 said plainly, then the charts and figures in light and dark.

const OWNER_TOKEN = 'test-owner-token-not-a-real-one-4c1d';
const PAGE_ADDRESS = 'https://shop.example/returns';

const OWNER_CONFIG = 'knowledge:\n  - path: ./docs\n    url: https://shop.example/\n';
const test = base.extend<{ ownerApp: { url: string } }>({
  ownerApp: [
    async ({ provider, servers }, use) =>
      use(await servers.once('owner app', () => startReturnsSite(provider.baseURL, OWNER_CONFIG, { OWNER_TOKEN }))),
    SERVER_START,
  ],
  baseURL: async ({ ownerApp }, use) => {
    await use(ownerApp.url);
  },
});

// Run in proxy mode only (e2e/playwright.config.ts): the counts are the page’s own server’s.

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

  const missing: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
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
  await expect(messages.getByText('1 conversation and 1 message in all.')).toBeVisible();
  await expect(page.locator('figure canvas')).toHaveCount(2);
  await expect(page.getByRole('region', { name: 'Answered from the site’s pages' })).toContainText('100% of replies');
  const votes = page.getByRole('region', { name: 'Helpful and Not helpful' });
  await expect(votes.getByRole('row', { name: 'Not helpful 1' })).toBeVisible();
  await expect(votes.getByRole('row', { name: 'Out of date 1' })).toBeVisible();
  // The two tables one under the other, their counts in one column.
  const tables = await votes.getByRole('table').all();
  expect(tables).toHaveLength(2);
  const countHeadings = await Promise.all(
    tables.map((table) => box(table.getByRole('columnheader', { name: 'Replies' }))),
  );
  expect(countHeadings[1].x, 'the second table’s count column starts where the first’s does').toBeCloseTo(
    countHeadings[0].x,
    0,
  );
  expect(countHeadings[1].width).toBeCloseTo(countHeadings[0].width, 0);
  const [first, second] = await Promise.all(tables.map((table) => box(table)));
  expect(second.width).toBeCloseTo(first.width, 0);
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

  // The page has an icon (the robot), and nothing it asked for was missing.
  const icon = await page.locator('link[rel="icon"]').evaluate((link) => (link as HTMLLinkElement).href);
  expect((await page.request.get(icon)).headers()['content-type']).toMatch(/^image\/svg\+xml/);
  expect(missing).toEqual([]);

  // Kept for the tab's session: a reload shows the figures without asking again.
  await page.reload();
  await expect(page.locator('figure canvas')).toHaveCount(2);
  expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
});

/** The last 30 days' stats, with `active` days (0 is today, 1 yesterday…) holding messages and replies. */
function statsWith(active: Record<number, Partial<StatsCounts>>): Stats {
  const days = Array.from({ length: 30 }, (_, index) => {
    const date = new Date(Date.now() - (29 - index) * 86_400_000).toISOString().slice(0, 10);
    return { date, ...counts(active[29 - index]) };
  });
  return { from: days[0].date, to: days[29].date, totals: counts(), days, down_sources: [] };
}

/**
 * What a chart drew in the page's accent: how many pixels, the columns they fill (as runs: one per bar or point), and
 * how far they keep from the plot's edges (in canvas pixels; 0 or less is cut by the edge).
 */
function accentDrawing(figure: Locator) {
  return figure.evaluate((node) => {
    const canvas = node.querySelector('canvas') as HTMLCanvasElement;
    const over = node.querySelector('.u-over') as HTMLElement;
    const ratio = canvas.width / canvas.getBoundingClientRect().width;
    const accent = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim();
    const wanted = [1, 3, 5].map((start) => Number.parseInt(accent.slice(start, start + 2), 16));
    const { data, width, height } = (canvas.getContext('2d') as CanvasRenderingContext2D).getImageData(
      0,
      0,
      canvas.width,
      canvas.height,
    );
    let count = 0;
    let [left, top, right, bottom] = [width, height, -1, -1];
    const columns = new Set<number>();
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 4;
        if (wanted.every((value, channel) => Math.abs(data[at + channel] - value) <= 24) && data[at + 3] > 200) {
          count++;
          columns.add(x);
          [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
        }
      }
    }
    const runs: number[] = [];
    for (const x of [...columns].sort((a, b) => a - b)) {
      if (columns.has(x - 1)) runs[runs.length - 1]++;
      else runs.push(1);
    }
    const plot = {
      left: over.offsetLeft * ratio,
      top: over.offsetTop * ratio,
      right: (over.offsetLeft + over.offsetWidth) * ratio,
      bottom: (over.offsetTop + over.offsetHeight) * ratio,
    };
    return {
      count,
      runs,
      room: {
        left: left - plot.left,
        top: top - plot.top,
        right: plot.right - 1 - right,
        bottom: plot.bottom - 1 - bottom,
      },
    };
  });
}

for (const [name, active, days] of [
  ['one day', { 0: { messages: 1, conversations: 1, with_sources: 1 } }, 1],
  [
    'three days',
    {
      0: { messages: 2, conversations: 1, without_sources: 2 },
      2: { messages: 1, conversations: 1, with_sources: 1 },
      5: { messages: 4, conversations: 2, with_sources: 2, without_sources: 2 },
    },
    3,
  ],
] as const) {
  test(`with ${name} of data the charts read: whole bars, points that show, nothing cut by the edges`, async ({
    page,
  }) => {
    await page.route(/\/api\/stats\?/, (route) => route.fulfill({ json: statsWith(active) }));
    await page.goto(OWNER_PAGE_PATH);
    await page.getByLabel('Owner token').fill(OWNER_TOKEN);
    await page.getByRole('button', { name: 'Show' }).click();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(page.locator('figure canvas')).toHaveCount(2);
      const bars = await accentDrawing(page.locator('figure').first());
      expect(bars.runs, `the bars, ${scheme}`).toHaveLength(days);
      for (const width of bars.runs) expect(width, `a bar's width in pixels, ${scheme}`).toBeGreaterThanOrEqual(8);
      const points = await accentDrawing(page.locator('figure').last());
      expect(points.runs, `the points, ${scheme}`).toHaveLength(days);
      for (const width of points.runs) expect(width, `a point's width in pixels, ${scheme}`).toBeGreaterThanOrEqual(7);
      expect(points.count, `the points' pixels, ${scheme}`).toBeGreaterThanOrEqual(days * 35);
      for (const [chart, drawing] of [
        ['bars', bars],
        ['points', points],
      ] as const) {
        const { left, top, right, bottom } = drawing.room;
        expect(Math.min(left, right), `the ${chart}' room inside the plot's sides, ${scheme}`).toBeGreaterThan(0);
        // Bars stand on the plot's bottom edge, and the highest reaches its top; points keep clear of both.
        if (chart === 'points') {
          expect(Math.min(top, bottom), `the points' room above and below, ${scheme}`).toBeGreaterThan(0);
        }
      }
    }
  });
}
