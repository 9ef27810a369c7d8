import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { createServer, type InlineConfig, type PreviewServer, preview, type ViteDevServer } from 'vite';
import { ROOT_DIR } from '../testing/production-app';
import { recordingLogger } from '../testing/vite-logger';
import { clientDir } from './e2e-env';
import { ERROR, expect, test } from './fixtures';

// `npm run dev` (Vite's dev server) and `vite preview`, started here as those commands start them (the project's own
// vite.config.ts), each in English and German, with and without a site configuration: no hydration error in any
// (the suite's watcher, e2e/fixtures.ts), and a message typed and sent as soon as the box appears is shown once and
// sent once. Both answer chat with the demo responder (no provider configured), which is enough here.

test.skip(({ mode }) => mode !== 'proxy', 'dev and preview are checked once, in proxy mode');

const SITE_CONFIG = fileURLToPath(new URL('./site-config.yaml', import.meta.url));

/**
 * The server a Vite command starts, with `env` in the environment while it reads its configuration (the
 * `ASSISTANT_CONFIG` of the command line, say), and a fresh dependency cache: a fresh clone's first run.
 */
async function startVite(
  kind: 'dev' | 'preview',
  env: Record<string, string> = {},
  extra: InlineConfig = {},
): Promise<{ url: string; lines: string[]; close(): Promise<void> }> {
  const { logger, lines } = recordingLogger();
  const cacheDir = await mkdtemp(join(tmpdir(), 'vite-cache-'));
  const config: InlineConfig = {
    root: ROOT_DIR,
    cacheDir,
    customLogger: logger,
    clearScreen: false,
    server: { port: 0, host: '127.0.0.1', hmr: false },
    preview: { port: 0, host: '127.0.0.1' },
    build: { outDir: clientDir('proxy') },
    ...extra,
  };
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  let server: ViteDevServer | PreviewServer;
  try {
    if (kind === 'dev') {
      const dev = await createServer({ ...config, mode: 'development' });
      await dev.listen();
      server = dev;
    } else {
      server = await preview(config);
    }
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  const address = server.httpServer?.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    lines,
    close: async () => {
      await server.close();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `url`, types and sends `text` as soon as the box is there (served, or rendered by the app in dev), and checks
 * that it is shown once, sent once, and answered.
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
    // A fresh dependency cache: the dev server pre-bundles and compiles everything on the first load.
    test.describe.configure({ timeout: 240_000 });

    test('in English and in German, an early message is shown once and sent once', async ({ page }) => {
      const server = await startVite(kind);
      try {
        await sendAsSoonAsTheBoxAppears(page, `${server.url}/`, 'Hello early');
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('AI Assistant');
        await sendAsSoonAsTheBoxAppears(page, `${server.url}/?lang=de`, 'Hallo früh');
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('KI-Assistent');
        await expect(page.locator('html')).toHaveAttribute('lang', 'de');
        if (kind === 'dev') {
          // A fresh clone's first run: the dependency scan finds the app's own page alone, and nothing is wrong.
          expect(server.lines.join('\n')).not.toMatch(/Failed to run dependency scan|error/i);
        }
      } finally {
        await server.close();
      }
    });

    test("with the site's configuration, an early message is shown once and sent once", async ({ page }) => {
      const server = await startVite(kind, { ASSISTANT_CONFIG: SITE_CONFIG });
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
