import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../testing/chromium';
import type { Mode } from './e2e-env';

export default defineConfig<{ mode: Mode }, { mode: Mode }>({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './global-setup.ts',
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // The machine has two cores; the direct project is limited to one of them (see below).
  workers: 2,
  // The ten slowest files at the end: where the command's time goes.
  reporter: [['list'], ['./slowest-reporter.ts']],
  timeout: 20_000,
  expect: { timeout: 5_000 },
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: CHROMIUM_ARGS,
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
    // Nothing here times the page's main thread: a shared machine can only lengthen a task, so such figures are the
    // bench's (`npm run bench` prints the longest task while a Markdown reply streams at 4× CPU).
    { name: 'proxy', use: { mode: 'proxy' } },
  ],
});
