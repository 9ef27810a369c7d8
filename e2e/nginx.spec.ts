import { CHAT_COMPLETIONS_PATH, MAX_TOKENS } from '../contract/llm';
import { FAKE_REPLY, type FakeProvider } from '../testing/fake-provider';
import { type HostSite, hostPageHtml } from '../testing/host-site';
import { type Nginx, startNginx } from '../testing/nginx';
import { startAppServer } from './app-server';
import { BASE_PATH, BASE_PATH_SERVER_ENTRY } from './e2e-env';
import { launcher, messageBox } from './embed-site';
import { test as base, type Closable, ERROR, expect, SERVER_START } from './fixtures';

// deploy/nginx.conf as committed, run by Debian's nginx with only its ports changed, in front of the production server
// under BASE_PATH=/assistant and of the site's own server: the card, the embed on the site's page, and a stream.

/** The production server under BASE_PATH, and deploy/nginx.conf's nginx in front of it and of `site`. */
async function startFront(provider: FakeProvider, site: HostSite): Promise<Nginx & Closable> {
  const app = await startAppServer(
    'proxy',
    provider.baseURL,
    { BASE_PATH, TRUST_PROXY: '127.0.0.1' },
    BASE_PATH_SERVER_ENTRY,
  );
  const nginx = await startNginx({
    sitePort: Number(new URL(site.origin).port),
    assistantPort: Number(new URL(app.url).port),
  });
  const close = async () => {
    await nginx.stop();
    await app.close();
  };
  return { origin: nginx.origin, stop: close, close };
}

// `site` (e2e/fixtures.ts) is the site's own server, behind nginx's `location /`.
const test = base.extend<{ front: Nginx }>({
  front: [
    async ({ provider, site, servers }, use) => use(await servers.once('nginx', () => startFront(provider, site))),
    SERVER_START,
  ],
});

// Run in proxy mode only (e2e/playwright.config.ts): nginx fronts the proxy build.

test('the card works through nginx, with the health checks and the server’s caching', async ({
  page,
  request,
  front,
  provider,
}) => {
  provider.reset();
  await page.goto(`${front.origin}${BASE_PATH}/`);
  const box = page.locator('input[name="message"]');
  await box.fill('Hello through nginx');
  await box.press('Enter');
  await expect(page.locator('[data-sender="bot"]').last()).toHaveText(FAKE_REPLY, { timeout: 30_000 });
  // The visitor's address reached the server as nginx forwarded it.
  expect(provider.requests).toHaveLength(1);

  const health = await request.get(`${front.origin}${BASE_PATH}/healthz`);
  expect(await health.json()).toEqual({ status: 'ok' });
  const asset = await page.locator('script[src*="/assets/"]').first().getAttribute('src');
  const cached = await request.get(new URL(asset ?? '', front.origin).href);
  expect(cached.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  expect((await request.get(`${front.origin}${BASE_PATH}/`)).headers()['cache-control']).toBe('no-cache');
});

test('the embed on a page of the site served by the same nginx', async ({ page, front, site }) => {
  const html = hostPageHtml({ appOrigin: front.origin }).replace(`${front.origin}/embed.js`, `${BASE_PATH}/embed.js`);
  site.page('/shop/', html);
  await page.goto(`${front.origin}/shop/`);
  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
  await messageBox(page).fill('Hello from the shop');
  await messageBox(page).press('Enter');
  const frame = page.frameLocator('iframe');
  await expect(frame.locator('[data-sender="bot"]').last()).not.toHaveText('', { timeout: 30_000 });
  await expect(frame.locator('[data-sender="bot"]').last()).not.toHaveText(ERROR);
});

test('a reply whose pieces come 250 ms apart reaches the browser spread over time, not in one read', async ({
  page,
  front,
  provider,
}) => {
  provider.reset();
  provider.respondWith({ stream: ['One ', 'two ', 'three ', 'four.'], pieceDelayMs: 250 });
  await page.goto(`${front.origin}${BASE_PATH}/`);
  const body = {
    model: 'Qwen/Qwen2.5-7B-Instruct',
    messages: [{ role: 'user', content: 'Count to four' }],
    max_tokens: MAX_TOKENS,
    temperature: 0.7,
    stream: true,
  };
  // The bytes as the page's fetch reads them, each read with the time it came: through nginx, as a visitor gets them.
  const reads = await page.evaluate(
    async ({ url, body }) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer same-origin-proxy' },
        body: JSON.stringify(body),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      const seen: { at: number; text: string }[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return seen;
        seen.push({ at: performance.now(), text: decoder.decode(value, { stream: true }) });
      }
    },
    { url: `${BASE_PATH}${CHAT_COMPLETIONS_PATH}`, body },
  );

  const withWords = reads.filter((read) => /One|two|three|four/.test(read.text));
  expect(withWords.length, reads.map((read) => read.text).join('|')).toBeGreaterThanOrEqual(3);
  // Four pieces 250 ms apart: the first and the last arrive at least 500 ms apart (750 ms as sent) when nothing holds
  // them back; a buffering front would hand over the whole reply in one read at its end.
  expect(withWords[withWords.length - 1].at - withWords[0].at).toBeGreaterThanOrEqual(500);
});
