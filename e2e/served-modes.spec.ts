import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { ERROR, expect, sendsAreTaken, test } from './fixtures';
import { startVite } from './vite-server';

// `npm run dev` (Vite's dev server) and `vite preview`, started here as those commands start them (the project's own
// vite.config.ts), each in English and German, with and without a site configuration: no hydration error in any
// (the suite's watcher, e2e/fixtures.ts), and a message typed as soon as the box appears, and sent as soon as a send
// is taken, is shown once and sent once. Both answer chat with the demo responder (no provider configured), which is enough here.

// Run in proxy mode only (e2e/playwright.config.ts): dev and preview are checked once, in proxy mode.

const SITE_CONFIG = fileURLToPath(new URL('./site-config.yaml', import.meta.url));

/**
 * Opens `url`, types `text` as soon as the box is there (served, or rendered by the app in dev), sends it as soon as a
 * send is taken (`sendsAreTaken`), and checks that it is shown once, sent once, and answered.
 */
async function sendAsSoonAsTheBoxAppears(page: Page, url: string, text: string) {
  const chatRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().includes('/chat/completions')) chatRequests.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(url, { waitUntil: 'commit' });
  const box = page.locator('input[name="message"]');
  await box.fill(text);
  await sendsAreTaken(page);
  await box.press('Enter');
  const users = page.locator('[data-sender="user"]');
  await expect(users).toHaveText([text], { timeout: 30_000 });
  const lastBot = page.locator('[data-sender="bot"]').last();
  await expect(lastBot).not.toHaveText('', { timeout: 30_000 });
  await expect(box).toBeEnabled({ timeout: 30_000 });
  await expect(lastBot).not.toHaveText(ERROR);
  await expect(users).toHaveText([text]);
  expect(chatRequests).toHaveLength(1);
  expect(consoleErrors).toEqual([]);
}

for (const kind of ['dev', 'preview'] as const) {
  test.describe(`${kind === 'dev' ? 'npm run dev' : 'vite preview'}`, () => {
    // `npm run dev`'s first test is a fresh clone's first run: an empty dependency cache, which the dev server fills
    // on the first load (pre-bundling the packages). The second goes on with that cache, as a second `npm run dev`
    // does (8.7 s for it, against 24 s with a fresh cache). So the two run in order, in one worker.
    test.describe.configure({ timeout: 240_000, ...(kind === 'dev' ? { mode: 'serial' as const } : {}) });
    let cacheDir = '';
    test.beforeAll(async () => {
      cacheDir = await mkdtemp(join(tmpdir(), 'vite-cache-'));
    });
    test.afterAll(() => rm(cacheDir, { recursive: true, force: true }));

    test('in English and in German, an early message is shown once and sent once', async ({ page }) => {
      const server = await startVite(kind, {}, { cacheDir });
      try {
        await sendAsSoonAsTheBoxAppears(page, `${server.url}/`, 'Hello early');
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('AI Assistant');
        await sendAsSoonAsTheBoxAppears(page, `${server.url}/?lang=de`, 'Hallo früh');
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('KI-Assistent');
        await expect(page.locator('html')).toHaveAttribute('lang', 'de');
        // No OWNER_TOKEN: no owner's page, and its file is never served as one.
        for (const path of ['/owner', '/owner.html']) {
          expect((await page.request.get(`${server.url}${path}`)).status(), path).toBe(404);
        }
        if (kind === 'dev') {
          // A fresh clone's first run: the dependency scan finds the app's own page alone, and nothing is wrong.
          expect(server.lines.join('\n')).not.toMatch(/Failed to run dependency scan|error/i);
        }
      } finally {
        await server.close();
      }
    });

    test("with the site's configuration, an early message is shown once and sent once", async ({ page }) => {
      const server = await startVite(kind, { ASSISTANT_CONFIG: SITE_CONFIG }, { cacheDir });
      try {
        await sendAsSoonAsTheBoxAppears(page, `${server.url}/`, 'Hello early');
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('Acme <Garden> Help');
        await expect(page).toHaveTitle('Acme <Garden> Help');
      } finally {
        await server.close();
      }
    });
  });
}

test("the dev server's dependency scan would report the bench's pages (so the check above can fail)", async () => {
  test.setTimeout(120_000);
  const server = await startVite(
    'dev',
    {},
    { optimizeDeps: { entries: ['index.html', 'bench/deep-chat/index.html'] } },
  );
  try {
    await expect.poll(() => server.lines.join('\n'), { timeout: 60_000 }).toMatch(/Failed to run dependency scan/);
  } finally {
    await server.close();
  }
});
