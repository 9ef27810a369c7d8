import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

/**
 * Flags for Chromium as root in a container with no network: no sandbox (root), no GPU, and none of the background
 * connections that this machine's closed network would refuse.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-dev-shm-usage',
];

/**
 * The browser for the browser tests and the benchmark: `CHROMIUM_PATH` if set, else Debian's `/usr/bin/chromium`,
 * else a Chromium that `npx playwright install chromium` downloaded (`undefined`: Playwright's own).
 */
export function chromiumExecutable(): string | undefined {
  const wanted = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(wanted)) return wanted;
  if (!process.env.CHROMIUM_PATH && existsSync(chromium.executablePath())) return undefined;
  throw new Error(
    `This needs Chromium, and there is none at ${wanted}.\n` +
      '  Debian/Ubuntu: apt-get install chromium\n' +
      '  Elsewhere: run `npx playwright install chromium` once (used when CHROMIUM_PATH is unset),\n' +
      '  or set CHROMIUM_PATH to a Chromium or Chrome executable.',
  );
}
