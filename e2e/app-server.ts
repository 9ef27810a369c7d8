import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { type ProductionServer, startProductionServer } from '../testing/production-app';
import { BUILD_DIR, E2E_MODEL, HELD_TIMEOUT_MS, type Mode, serverEntry, UPSTREAM_API_KEY } from './e2e-env';

/** What the server is told in each mode. */
function modeEnv(mode: Mode, providerBaseURL: string): Record<string, string> {
  if (mode === 'direct') {
    return {
      // The page calls the provider itself; the server only serves files, so its own chat endpoint is the demo.
      LLM_DEMO: '1',
      // The production CSP allows connections to the page's origin only, unless told the provider's.
      CSP_CONNECT_SRC: new URL(providerBaseURL).origin,
    };
  }
  return {
    LLM_BASE_URL: providerBaseURL,
    LLM_API_KEY: UPSTREAM_API_KEY,
    LLM_MODEL: E2E_MODEL,
    LLM_TIMEOUT_MS: String(HELD_TIMEOUT_MS),
  };
}

/**
 * Runs the production server as `npm start` does (`node dist/server/main.js`, here the e2e build of it), configured
 * only through its environment, on a free port of 127.0.0.1. `env` adds to it (e.g. `FRAME_ANCESTORS`); `entry` is
 * another build of the server (the BASE_PATH tests').
 */
/**
 * Gives the running test the time to start a server of its own (and, for startReturnsSite, wait up to 30 s for its
 * index): that is not the test's own time, and on a busy machine it can take most of a test's 20 s.
 */
export function allowServerStart(): void {
  test.info().setTimeout(test.info().timeout + 40_000);
}

export function startAppServer(
  mode: Mode,
  providerBaseURL: string,
  env: Record<string, string> = {},
  entry = serverEntry(mode),
): Promise<ProductionServer> {
  return startProductionServer(entry, {
    // The suite sends far more than a visitor would; the limiter has its own tests.
    RATE_LIMIT_PER_MINUTE: '0',
    ...modeEnv(mode, providerBaseURL),
    ...env,
  });
}

/**
 * The proxy-mode server with a site's configuration (`config`, as assistant.config.yaml) and the one page of its
 * `./docs` folder (returns.md), in a folder of its own under BUILD_DIR; resolved once `/readyz` says the page is
 * indexed. Closing it removes the folder.
 */
export async function startReturnsSite(
  providerBaseURL: string,
  config: string,
  env: Record<string, string> = {},
): Promise<ProductionServer> {
  const dir = await mkdtemp(join(BUILD_DIR, 'site-'));
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'docs', 'returns.md'), '# Returns\n\nA rake can be returned within thirty days.\n');
  await writeFile(join(dir, 'assistant.config.yaml'), config);
  const server = await startAppServer('proxy', providerBaseURL, {
    ASSISTANT_CONFIG: join(dir, 'assistant.config.yaml'),
    ...env,
  });
  await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 30_000 }).toBe(200);
  return {
    ...server,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
