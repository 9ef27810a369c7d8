import type { APIRequestContext, Page } from '@playwright/test';
import { FAKE_REPLY } from '../testing/fake-provider';
import { hostPageHtml } from '../testing/host-site';
import { startAppServer } from './app-server';
import { BASE_PATH, BASE_PATH_CLIENT_DIR, BASE_PATH_SERVER_ENTRY } from './e2e-env';
import { launcher, messageBox } from './embed-site';
import { ERROR, expect, test } from './fixtures';
import { startVite } from './vite-server';

// BASE_PATH=/assistant, at build time and at start: the page, its assets, the loader, the frame, the chat API and the
// health checks under it, the owner's page too, and a 404 outside it, under `npm start`, `vite preview` and `npm run dev` alike. The build
// is made once, by the global setup, with the others.

// Run in proxy mode only (e2e/playwright.config.ts): the sub-path is checked once.

/** The page under the sub-path works: its assets load, and a message gets a reply through the API under it. */
async function chatUnder(page: Page, origin: string, reply?: string) {
  const chatRequests: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST') chatRequests.push(new URL(request.url()).pathname);
  });
  await page.goto(`${origin}${BASE_PATH}/`);
  const box = page.locator('input[name="message"]');
  await box.fill('Hello from a sub-path');
  await box.press('Enter');
  const lastBot = page.locator('[data-sender="bot"]').last();
  await expect(lastBot).not.toHaveText('', { timeout: 30_000 });
  await expect(box).toBeEnabled({ timeout: 30_000 });
  await expect(lastBot).not.toHaveText(ERROR);
  if (reply) await expect(lastBot).toHaveText(reply);
  expect(chatRequests).toEqual([`${BASE_PATH}/api/llm/v1/chat/completions`]);
}

const OWNER_TOKEN = 'test-owner-token-under-a-sub-path-0b7e';

/** The owner's page under the sub-path: its assets load, and its stats come from the API under it. */
async function ownerPageUnder(page: Page, origin: string) {
  const stats = page.waitForResponse((response) => response.url().includes('/api/stats'));
  await page.goto(`${origin}${BASE_PATH}/owner`);
  await page.getByLabel('Owner token').fill(OWNER_TOKEN);
  await page.getByRole('button', { name: 'Show' }).click();
  const response = await stats;
  expect(new URL(response.url()).pathname).toBe(`${BASE_PATH}/api/stats`);
  expect(response.status()).toBe(200);
  await expect(page.locator('figure canvas')).toHaveCount(2);
  // Its icon too: the robot, under the sub-path.
  const icon = await page.locator('link[rel="icon"]').evaluate((link) => (link as HTMLLinkElement).href);
  expect(new URL(icon).pathname).toBe(`${BASE_PATH}/robot.svg`);
  expect((await page.request.get(icon)).status()).toBe(200);
}

/** The loader and the health checks are under the sub-path; nothing is outside it. */
async function onlyUnder(request: APIRequestContext, origin: string) {
  const health = await request.get(`${origin}${BASE_PATH}/healthz`);
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok' });
  const ready = await request.get(`${origin}${BASE_PATH}/readyz`);
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toMatchObject({ status: 'ready' });
  const loader = await request.get(`${origin}${BASE_PATH}/embed.js`);
  expect(loader.status()).toBe(200);
  expect(loader.headers()['content-type']).toMatch(/javascript/);
  for (const outside of [
    '/',
    '/healthz',
    '/readyz',
    '/embed.js',
    '/index.html',
    '/owner',
    '/api/llm/v1/models',
    '/assistantx/',
  ]) {
    expect((await request.get(`${origin}${outside}`)).status(), outside).toBe(404);
  }
}

test('npm start: everything under the sub-path, the embed too, and a 404 outside it', async ({
  page,
  request,
  provider,
  site,
}) => {
  // A server started, a chat, a dozen requests and an embed: more than the suite's 20 s on a busy machine.
  test.setTimeout(60_000);
  provider.reset();
  const server = await startAppServer(
    'proxy',
    provider.baseURL,
    { BASE_PATH, FRAME_ANCESTORS: site.origin, OWNER_TOKEN },
    BASE_PATH_SERVER_ENTRY,
  );
  try {
    const { origin } = new URL(server.url);
    await chatUnder(page, origin, FAKE_REPLY);
    await onlyUnder(request, origin);
    await ownerPageUnder(page, origin);

    // A host page's snippet names the loader under the sub-path; the loader frames the app beside itself.
    const html = hostPageHtml({ appOrigin: origin }).replace(`${origin}/embed.js`, `${origin}${BASE_PATH}/embed.js`);
    await page.goto(site.page('/', html));
    await launcher(page).click();
    await expect(messageBox(page)).toBeFocused();
    expect(await page.locator('iframe').getAttribute('src')).toMatch(new RegExp(`^${origin}${BASE_PATH}/\\?embed=`));
  } finally {
    await server.close();
  }
});

for (const kind of ['preview', 'dev'] as const) {
  test(`${kind === 'dev' ? 'npm run dev' : 'vite preview'}: the page, the API and the health checks under the sub-path, a 404 outside it`, async ({
    page,
    request,
  }) => {
    // A fresh dependency cache: the dev server pre-bundles and compiles everything on the first load.
    test.setTimeout(240_000);
    const server = await startVite(kind, { BASE_PATH, OWNER_TOKEN }, { build: { outDir: BASE_PATH_CLIENT_DIR } });
    try {
      const { origin } = new URL(server.url);
      await chatUnder(page, origin);
      await onlyUnder(request, origin);
      await ownerPageUnder(page, origin);
    } finally {
      await server.close();
    }
  });
}
