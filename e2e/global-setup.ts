import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import {
  BUILD_DIR,
  CLIENT_TIMEOUT_MS,
  DIRECT_API_KEY,
  DIRECT_CLIENT_DIR,
  DIRECT_PROVIDER_BASE_URL,
  E2E_MODEL,
  PROXY_CLIENT_DIR,
  PROXY_SERVER_ENTRY,
  ROOT_DIR,
} from './e2e-env';

const run = promisify(execFile);

/** Builds the client with exactly these `VITE_LLM_*` values, whatever the developer's shell or `.env` files say. */
async function buildClient(outDir: string, llmEnv: Record<string, string>) {
  // Vite lets variables already in the environment win over `.env` files, so an empty key really means "no key".
  const env = {
    ...process.env,
    VITE_LLM_API_KEY: '',
    VITE_LLM_BASE_URL: '',
    VITE_LLM_MODEL: '',
    VITE_LLM_TIMEOUT_MS: '',
    ...llmEnv,
  };
  await run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--outDir', outDir, '--emptyOutDir'], {
    cwd: ROOT_DIR,
    env,
  }).catch((error: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(`vite build for ${outDir} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  });
}

/** Builds the app once per mode, the way it ships, before any browser starts. */
export default async function globalSetup() {
  // For a quick re-run while writing tests; a normal run always builds what is in the tree now.
  if (process.env.E2E_REUSE_BUILD === '1' && existsSync(DIRECT_CLIENT_DIR) && existsSync(PROXY_SERVER_ENTRY)) {
    console.log(`E2E_REUSE_BUILD=1: reusing the builds in ${BUILD_DIR}`);
    return;
  }
  const started = Date.now();
  await Promise.all([
    buildClient(DIRECT_CLIENT_DIR, {
      VITE_LLM_API_KEY: DIRECT_API_KEY,
      VITE_LLM_BASE_URL: DIRECT_PROVIDER_BASE_URL,
      VITE_LLM_MODEL: E2E_MODEL,
      VITE_LLM_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS),
    }),
    buildClient(PROXY_CLIENT_DIR, { VITE_LLM_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS) }),
  ]);
  console.log(`Built the app for the browser tests in ${BUILD_DIR} (${Date.now() - started} ms)`);
}
