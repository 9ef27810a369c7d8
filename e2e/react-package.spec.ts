import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { ROOT_DIR } from '../testing/production-app';
import { startStaticHost } from '../testing/static-host';
import { startAppServer } from './app-server';
import { chatFrame, launcher, messageBox, recordIdentify } from './embed-site';
import { test as base, type Closable, expect, SERVER_START } from './fixtures';

// `@ai-assistant/react` as a React site gets it: `npm pack`, the tarball installed into a fresh Vite + React app
// (e2e/react-site, in StrictMode), built, served on one origin, against the production server on another. Off the
// network: react, react-dom, vite and its React plugin are linked from the project's node_modules.

const run = promisify(execFile);

/** Packs packages/react, installs the tarball into a copy of e2e/react-site, and builds it; returns its dist. */
async function buildReactSite(dir: string): Promise<string> {
  await run('npm', ['pack', '--pack-destination', dir, '--workspace', 'packages/react'], { cwd: ROOT_DIR });
  const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  const site = join(dir, 'site');
  await cp(join(ROOT_DIR, 'e2e/react-site'), site, { recursive: true });
  await writeFile(join(site, 'package.json'), JSON.stringify({ name: 'react-site', private: true, type: 'module' }));
  // The peer dependency (react) is linked below, as the site's own.
  const install = ['install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps', '--ignore-scripts'];
  await run('npm', [...install, join(dir, tarball)], { cwd: site });
  for (const name of ['react', 'react-dom', 'vite', '@vitejs/plugin-react']) {
    await mkdir(dirname(join(site, 'node_modules', name)), { recursive: true });
    await symlink(join(ROOT_DIR, 'node_modules', name), join(site, 'node_modules', name));
  }
  // React runs StrictMode's double effects only in its development build: the site is built with that React.
  await run(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--mode', 'development', '--logLevel', 'warn'],
    {
      cwd: site,
      env: { ...process.env, NODE_ENV: 'development' },
    },
  );
  return join(site, 'dist');
}

/** The React site, built from the tarball and served on its own origin. */
async function startReactSite(): Promise<{ origin: string } & Closable> {
  const dir = await mkdtemp(join(tmpdir(), 'react-site-'));
  const host = await startStaticHost(await buildReactSite(dir));
  const close = async () => {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { origin: host.url, close };
}

const test = base.extend<{
  reactSite: { origin: string };
  /** The production server, told that the React site may embed it. */
  reactApp: { origin: string };
  sitePage: (query?: string) => Promise<void>;
}>({
  reactSite: [async ({ servers }, use) => use(await servers.once('react site', startReactSite)), SERVER_START],
  reactApp: [
    async ({ provider, reactSite, servers }, use) => {
      const start = () => startAppServer('proxy', provider.baseURL, { FRAME_ANCESTORS: reactSite.origin });
      const server = await servers.once('react app', start);
      await use({ origin: new URL(server.url).origin });
    },
    SERVER_START,
  ],
  sitePage: async ({ page, reactSite, reactApp }, use) => {
    await use(async (query = '') => {
      await page.goto(`${reactSite.origin}/?src=${encodeURIComponent(`${reactApp.origin}/`)}${query}`);
    });
  },
});

// Run in proxy mode only (e2e/playwright.config.ts): the component frames the proxy build, as the embed does.
// In order, in one worker: the site is packed, installed and built once.
test.describe.configure({ mode: 'default' });

const launchers = (page: Page) => page.locator('ai-assistant-embed');
const loaders = (page: Page) => page.locator('script[src$="/embed.js"]');

/** How many listeners the page's window, document and visual viewport hold, as Chromium's DevTools count them. */
async function globalListeners(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  let total = 0;
  for (const expression of ['window', 'document', 'visualViewport']) {
    const { result } = await cdp.send('Runtime.evaluate', { expression });
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId ?? '' });
    total += listeners.length;
  }
  await cdp.detach();
  return total;
}

test('in StrictMode one loader draws one launcher, and the ref opens the panel', async ({ page, sitePage }) => {
  // Every loader tag and launcher ever added to the page, removed since or not: a second one would be a second loader.
  await page.addInitScript(() => {
    const added: string[] = [];
    Object.assign(window, { added });
    new MutationObserver((records) => {
      for (const node of records.flatMap((record) => [...record.addedNodes])) {
        if (
          node instanceof HTMLScriptElement ? node.src.endsWith('/embed.js') : node.nodeName === 'AI-ASSISTANT-EMBED'
        ) {
          added.push(node.nodeName);
        }
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await sitePage();
  await expect(launcher(page)).toBeVisible();
  await expect(launchers(page)).toHaveCount(1);
  await expect(loaders(page)).toHaveCount(1);
  expect(await page.evaluate(() => (window as unknown as { added: string[] }).added)).toEqual([
    'SCRIPT',
    'AI-ASSISTANT-EMBED',
  ]);
  expect(await launcher(page).evaluate((button) => getComputedStyle(button).bottom)).toBe('24px');

  await page.getByRole('button', { name: 'Ask the assistant' }).click();
  await expect(messageBox(page)).toBeFocused();
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { hostEvents: string[] }).hostEvents))
    .toEqual(['open']);
});

test('unmounting removes the launcher, the frame and every listener; a remount draws one again', async ({
  page,
  sitePage,
}) => {
  await sitePage('&hidden');
  const before = await globalListeners(page);
  const hide = page.getByRole('button', { name: 'Hide the assistant' });

  await page.getByRole('button', { name: 'Show the assistant' }).click();
  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
  await expect(page.locator('iframe')).toHaveCount(1);
  expect(await globalListeners(page)).toBeGreaterThan(before);

  await hide.click();
  await expect(launchers(page)).toHaveCount(0);
  await expect(page.locator('iframe')).toHaveCount(0);
  await expect(loaders(page)).toHaveCount(0);
  expect(await page.evaluate(() => 'AIAssistant' in window)).toBe(false);
  expect(await globalListeners(page)).toBe(before);

  await page.getByRole('button', { name: 'Show the assistant' }).click();
  await expect(launchers(page)).toHaveCount(1);
  await page.getByRole('button', { name: 'Ask the assistant' }).click();
  await expect(messageBox(page)).toBeFocused();
});

test('a change of lang takes effect without a reload, the panel left open', async ({ page, sitePage }) => {
  await sitePage();
  await page.getByRole('button', { name: 'Ask the assistant' }).click();
  await expect(messageBox(page)).toBeFocused();
  await page.evaluate(() => Object.assign(window, { samePage: true }));

  await page.getByRole('button', { name: 'Deutsch' }).click();
  await expect(chatFrame(page).getByRole('textbox', { name: 'Nachricht' })).toBeVisible();
  await expect(launchers(page)).toHaveCount(1);
  await expect(page.locator('iframe')).toHaveCount(1);
  expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
});

test('identity reaches the frame: given before the chat opened, again to a loader loaded again, and taken back', async ({
  page,
  sitePage,
  reactSite,
  reactApp,
}) => {
  const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZWFjdC12aXNpdG9yIn0.fake-react-signature';
  const heard = await recordIdentify(page, reactApp.origin);
  await sitePage();
  await expect(launcher(page)).toBeVisible();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('iframe')).toHaveCount(0);

  await page.getByRole('button', { name: 'Ask the assistant' }).click();
  await expect(messageBox(page)).toBeFocused();
  await expect.poll(heard).toContainEqual([reactSite.origin, token]);
  expect(new Set((await heard()).map(([, given]) => given))).toEqual(new Set([token]));

  // Another lang loads the loader again, and a new frame: it is told the token too.
  await page.getByRole('button', { name: 'Deutsch' }).click();
  const frameHeard = () =>
    chatFrame(page)
      .getByRole('textbox', { name: 'Nachricht' })
      .evaluate(() => (window as unknown as { heard: [string, unknown][] }).heard);
  await expect.poll(frameHeard).toContainEqual([reactSite.origin, token]);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect.poll(async () => (await frameHeard()).at(-1)).toEqual([reactSite.origin, null]);
});

test('a second component says so in the console and draws nothing', async ({ page, sitePage }) => {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning') warnings.push(message.text());
  });
  await sitePage();
  await expect(launcher(page)).toBeVisible();
  await page.getByRole('button', { name: 'Add a second assistant' }).click();

  await expect
    .poll(() => warnings)
    .toContain('AIAssistant: the assistant is on this page already; this one draws nothing.');
  await expect(launchers(page)).toHaveCount(1);
  await expect(loaders(page)).toHaveCount(1);
  // The first one's, on the right: the second asked for the left.
  const box = await launcher(page).boundingBox();
  expect(box?.x).toBeGreaterThan(640);
});

for (const first of ['', 'assistant/']) {
  test(`a src of ${JSON.stringify(first)} is warned about and ignored, and the right one then loads`, async ({
    page,
    sitePage,
  }) => {
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await sitePage(`&first=${encodeURIComponent(first)}`);
    await expect
      .poll(() => warnings)
      .toContain(`AIAssistant: src "${first}" is no https:// address; nothing is drawn.`);
    await expect(loaders(page)).toHaveCount(0);

    await page.getByRole('button', { name: "Use the assistant's address" }).click();
    await expect(launcher(page)).toBeVisible();
    await expect(loaders(page)).toHaveCount(1);
    await page.getByRole('button', { name: 'Ask the assistant' }).click();
    await expect(messageBox(page)).toBeFocused();
  });
}
