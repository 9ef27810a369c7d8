import { fileURLToPath } from 'node:url';

// Shared by the global setup (which bakes them into the builds) and the fixtures (which serve what was built).

/** Which way the page reaches the model: through the production server's proxy, or straight to the provider. */
export type Mode = 'proxy' | 'direct';

/** Builds made for the browser tests, apart from `dist/` so that they never end up deployed. */
export const BUILD_DIR = fileURLToPath(new URL('../node_modules/.cache/e2e/', import.meta.url));

/**
 * One build per mode, each laid out like `dist/`: the production server finds the client at `../client` from its
 * own file, as `dist/server/main.js` finds `dist/client`.
 */
export function clientDir(mode: Mode): string {
  return `${BUILD_DIR}${mode}/client`;
}
export function serverDir(mode: Mode): string {
  return `${BUILD_DIR}${mode}/server`;
}
export function serverEntry(mode: Mode): string {
  return `${serverDir(mode)}/main.js`;
}

/** The sub-path of the BASE_PATH tests (e2e/base-path.spec.ts), and their proxy build made with it. */
export const BASE_PATH = '/assistant';
export const BASE_PATH_CLIENT_DIR = `${BUILD_DIR}base-path/client`;
/** The proxy build's server, copied next to that client: the server bundle is the same whatever the base path. */
export const BASE_PATH_SERVER_ENTRY = `${BUILD_DIR}base-path/server/main.js`;

/**
 * A direct-mode build calls the provider at a URL fixed at build time, so its fake provider listens on a fixed port
 * (the direct project therefore runs in one worker). Overridable if something else holds the port.
 */
export const DIRECT_PROVIDER_PORT = Number(process.env.E2E_DIRECT_PROVIDER_PORT ?? 43117);
export const DIRECT_PROVIDER_BASE_URL = `http://127.0.0.1:${DIRECT_PROVIDER_PORT}/v1`;

/** The token embedded in the direct-mode build. Fake, and only ever sent to the fake provider. */
export const DIRECT_API_KEY = 'e2e-fake-key-not-real';
/** The token the production server holds in proxy mode; the page must never see it. */
export const UPSTREAM_API_KEY = 'e2e-upstream-key-not-real';
/** What the page sends in proxy mode instead of a token (`PROXY_PLACEHOLDER_KEY` in src/llm/llm-config.ts). */
export const PROXY_PLACEHOLDER_KEY = 'same-origin-proxy';

/** The model named by the direct build and by the proxy server's `LLM_MODEL`. */
export const E2E_MODEL = 'e2e/fake-7b-instruct';

/**
 * The page's own reply deadline (`VITE_LLM_TIMEOUT_MS`) and the server's (`LLM_TIMEOUT_MS`) in every build and server
 * the suite starts: far longer than any test, so that a request a test holds (to look at the sending screen, run axe
 * on it, or write a stream piece by piece) is never ended under it by a deadline the test is not about.
 */
export const HELD_TIMEOUT_MS = 300_000;
/**
 * The server deadline of the tests about a provider that never answers (proxy mode): they start a server of their own
 * with it. The page's deadline is reached in direct mode by moving the page's clock (see the fault matrix).
 */
export const SHORT_SERVER_TIMEOUT_MS = 1000;
/** The page's slow-reply hint (`VITE_LLM_SLOW_MS`): a short configured duration that a test can wait for. */
export const CLIENT_SLOW_MS = 1000;
