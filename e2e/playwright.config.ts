import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../testing/chromium';
import type { Mode } from './e2e-env';

/** The files with tests in direct mode (see the `direct` project). */
const DIRECT_FILES = [
  '**/visitor-model.spec.ts',
  '**/fault-matrix.spec.ts',
  '**/input-edge-cases.spec.ts',
  '**/provider-calls.spec.ts',
  '**/static-host.spec.ts',
];

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
    // A worker's tests go on in one browser context and page, which Playwright resets between them (cookies, cache,
    // local and session storage of every origin visited, routes, init scripts, the clock, viewport and emulation;
    // e2e/fixtures.ts removes the listeners a test added). A new context per test cost three times the CPU of the
    // app's own load: measured on 2026-11-29, a page opened, answered and closed 12 times took 3.1 s of CPU apiece in
    // new contexts and 1.2 s in one; the fault matrix's 20 tests, 91 s of CPU against 62. A test that needs a context
    // of its own (another locale, a phone) gets one: Playwright makes it for the options it cannot reset.
    reuseContext: true,
  },
  projects: [
    // The direct build calls a provider on a port fixed at build time, so its tests share one fake provider and one
    // worker. Listed first, so that the other worker runs proxy tests meanwhile rather than waiting for them at the end.
    // Only the files where the page's own call to the provider changes something run here: what the page looks like,
    // what the box does, and everything the page's own server does (the embed, knowledge, limits, the site's
    // configuration) is checked once, in proxy mode. A file listed here and not in the other project needs no `mode`
    // check of its own; the skipped test of a listed file would still start a worker for nothing.
    {
      name: 'direct',
      use: { mode: 'direct' },
      workers: 1,
      testMatch: DIRECT_FILES,
    },
    // Nothing here times the page's main thread: a shared machine can only lengthen a task, so such figures are the
    // bench's (`npm run bench` prints the longest task while a Markdown reply streams at 4× CPU).
    // A static host serves the direct build only (static-host.spec.ts).
    { name: 'proxy', use: { mode: 'proxy' }, testIgnore: '**/static-host.spec.ts' },
  ],
});
