import { existsSync } from 'node:fs';
import { chromium, defineConfig } from '@playwright/test';
import type { Mode } from './e2e-env';

/**
 * The browser: `CHROMIUM_PATH` if set, else Debian's `/usr/bin/chromium`, else a Chromium that
 * `npx playwright install chromium` downloaded (on a machine that can reach Playwright's CDN).
 */
function chromiumExecutable(): string | undefined {
  const wanted = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(wanted)) return wanted;
  if (!process.env.CHROMIUM_PATH && existsSync(chromium.executablePath())) return undefined;
  throw new Error(
    `The browser tests need Chromium, and there is none at ${wanted}.\n` +
      '  Debian/Ubuntu: apt-get install chromium\n' +
      '  Elsewhere: run `npx playwright install chromium` once (used when CHROMIUM_PATH is unset),\n' +
      '  or set CHROMIUM_PATH to a Chromium or Chrome executable.',
  );
}

export default defineConfig<{ mode: Mode }, { mode: Mode }>({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './global-setup.ts',
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // The machine has two cores; the direct project is limited to one of them (see below).
  workers: 2,
  reporter: 'list',
  timeout: 20_000,
  expect: { timeout: 5_000 },
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-dev-shm-usage',
      ],
    },
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
  },
  projects: [
    // The direct build calls a provider on a port fixed at build time, so its tests share one fake provider and one
    // worker. Listed first, so that the other worker runs proxy tests meanwhile rather than waiting for them at the end.
    // The page's look and accessibility do not depend on how it reaches the model: checked once, in proxy mode.
    {
      name: 'direct',
      use: { mode: 'direct' },
      workers: 1,
      testIgnore: ['**/layout.spec.ts', '**/accessibility.spec.ts'],
    },
    { name: 'proxy', use: { mode: 'proxy' } },
  ],
});
