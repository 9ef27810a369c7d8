import { cp, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { precompressDir } from '../server/precompress.ts';
import { type ProductionServer, ROOT_DIR, startProductionServer, viteBuild } from '../testing/production-app.ts';

export { ROOT_DIR };
/** The benchmark's own build, apart from `dist/` so that it never ends up deployed or races a developer's build. */
export const BUILD_DIR = fileURLToPath(new URL('../node_modules/.cache/bench/', import.meta.url));
export const CLIENT_DIR = `${BUILD_DIR}client`;
/** The server finds the client at `../client` from its own file, as `dist/server/main.js` finds `dist/client`. */
const SERVER_DIR = `${BUILD_DIR}server`;
const BASELINE_SOURCE = fileURLToPath(new URL('./baseline/', import.meta.url));
/** Where the production server serves the baseline page: same origin, headers and compression as the app. */
export const BASELINE_PATH = '/baseline/index.html';

/** The token the server holds; only ever sent to the fake provider. */
const UPSTREAM_API_KEY = 'bench-key-not-real';
const MODEL = 'bench-model';

/**
 * Builds the app as `npm run build` does (client with its size budget and precompressed files, then the server), into
 * the benchmark's folder, and puts the baseline page next to the app with its own compressed copies. Returns the
 * client build's output, which holds the size budget's report.
 */
export async function buildAll(): Promise<string> {
  const clientOutput = await viteBuild(['--outDir', CLIENT_DIR, '--emptyOutDir']);
  await viteBuild(['--ssr', 'server/main.ts', '--outDir', SERVER_DIR, '--emptyOutDir']);
  const baselineDir = `${CLIENT_DIR}/baseline`;
  await mkdir(baselineDir, { recursive: true });
  await cp(BASELINE_SOURCE, baselineDir, { recursive: true });
  await precompressDir(baselineDir);
  return clientOutput;
}

/**
 * Runs the production server as `npm start` does (`node dist/server/main.js`, here the benchmark's build of it),
 * configured only through its environment, forwarding to `providerBaseURL`.
 */
export function startServer(providerBaseURL: string): Promise<ProductionServer> {
  return startProductionServer(`${SERVER_DIR}/main.js`, {
    LLM_BASE_URL: providerBaseURL,
    LLM_API_KEY: UPSTREAM_API_KEY,
    LLM_MODEL: MODEL,
    // The benchmark sends about a thousand messages a minute from one address; the limiter stays on the path.
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
}
