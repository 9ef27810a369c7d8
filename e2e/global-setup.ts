import { existsSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { viteBuild } from '../testing/production-app';
import {
  BASE_PATH,
  BASE_PATH_CLIENT_DIR,
  BASE_PATH_SERVER_ENTRY,
  BUILD_DIR,
  CLIENT_SLOW_MS,
  clientDir,
  DIRECT_API_KEY,
  DIRECT_PROVIDER_BASE_URL,
  E2E_MODEL,
  HELD_TIMEOUT_MS,
  serverDir,
  serverEntry,
} from './e2e-env';

/** Builds the app once per mode, the way it ships (`npm run build`), before any browser starts. */
export default async function globalSetup() {
  // For quick re-runs while writing tests; a normal run always builds what is in the tree now.
  const built = [serverEntry('proxy'), serverEntry('direct'), BASE_PATH_SERVER_ENTRY];
  if (process.env.E2E_REUSE_BUILD === '1' && built.every((entry) => existsSync(entry))) {
    console.log(`E2E_REUSE_BUILD=1: reusing the builds in ${BUILD_DIR}`);
    return;
  }
  const started = Date.now();
  const clientTimes = { VITE_LLM_TIMEOUT_MS: String(HELD_TIMEOUT_MS), VITE_LLM_SLOW_MS: String(CLIENT_SLOW_MS) };
  await rm(BUILD_DIR, { recursive: true, force: true });
  await Promise.all([
    viteBuild(['--outDir', clientDir('direct'), '--emptyOutDir'], {
      VITE_LLM_API_KEY: DIRECT_API_KEY,
      VITE_LLM_BASE_URL: DIRECT_PROVIDER_BASE_URL,
      VITE_LLM_MODEL: E2E_MODEL,
      ...clientTimes,
    }),
    viteBuild(['--outDir', clientDir('proxy'), '--emptyOutDir'], clientTimes),
    viteBuild(['--outDir', BASE_PATH_CLIENT_DIR, '--emptyOutDir'], { ...clientTimes, BASE_PATH }),
    viteBuild(['--ssr', 'server/main.ts', '--outDir', serverDir('proxy'), '--emptyOutDir']),
  ]);
  // The same server serves both modes; each copy finds its own build at `../client`.
  await cp(serverDir('proxy'), serverDir('direct'), { recursive: true });
  await cp(serverDir('proxy'), dirname(BASE_PATH_SERVER_ENTRY), { recursive: true });
  console.log(`Built the app for the browser tests in ${BUILD_DIR} (${Date.now() - started} ms)`);
}
