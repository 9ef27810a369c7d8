import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { readSizeReport } from '../build/size-budget.ts';
import { CHAT_COMPLETIONS_PATH, DEFAULT_MODEL, DEFAULT_TIMEOUT_MS, MAX_TOKENS, TEMPERATURE } from '../contract/llm.ts';
import { precompressDir } from '../server/pages/pages.ts';
import { startProductionServer, viteBuild } from '../testing/production-app.ts';

/** The benchmark's own build, apart from `dist/` so that it never ends up deployed or races a developer's build. */
const BUILD_DIR = fileURLToPath(new URL('../node_modules/.cache/bench/', import.meta.url));
/** The server finds the client at `../client` from its own file, as `dist/server/main.js` finds `dist/client`. */
const CLIENT_DIR = `${BUILD_DIR}client`;
const DEEP_CHAT_BUNDLE = '../node_modules/deep-chat/dist/deepChat.bundle.js';
/** Where the production server serves the baseline page: same origin, headers and compression as the app. */
export const BASELINE_PATH = '/baseline/index.html';
/** Where it serves Deep Chat's page (bench/deep-chat/ with the package's one-file bundle beside it), the same way. */
export const DEEP_CHAT_PATH = '/deep-chat/index.html';

/**
 * Builds the app as `npm run build` does, with the baseline page beside it (the request's constants written in, and
 * precompressed) and Deep Chat's. Returns every script's gzip size by path: from the build's report, the baseline's from its `.gz`.
 */
export async function buildAll(): Promise<Map<string, number>> {
  const sizes = readSizeReport(await viteBuild(['--outDir', CLIENT_DIR, '--emptyOutDir']));
  await viteBuild(['--ssr', 'server/main.ts', '--outDir', `${BUILD_DIR}server`, '--emptyOutDir']);
  const baselineDir = `${CLIENT_DIR}/baseline`;
  await cp(fileURLToPath(new URL('./baseline/', import.meta.url)), baselineDir, { recursive: true });
  const script = `${baselineDir}/baseline.js`;
  const request = {
    path: CHAT_COMPLETIONS_PATH,
    model: DEFAULT_MODEL,
    maxTokens: MAX_TOKENS,
    temperature: TEMPERATURE,
  };
  const source = await readFile(script, 'utf8');
  if (!source.includes('__CHAT_REQUEST__')) throw new Error(`${script} no longer reads __CHAT_REQUEST__`);
  await writeFile(
    script,
    source.replace('__CHAT_REQUEST__', JSON.stringify({ ...request, timeoutMs: DEFAULT_TIMEOUT_MS })),
  );
  await precompressDir(baselineDir);
  sizes.set('baseline/baseline.js', (await stat(`${script}.gz`)).size);
  const deepChatDir = `${CLIENT_DIR}/deep-chat`;
  await cp(fileURLToPath(new URL('./deep-chat/', import.meta.url)), deepChatDir, { recursive: true });
  await cp(fileURLToPath(new URL(DEEP_CHAT_BUNDLE, import.meta.url)), `${deepChatDir}/deepChat.bundle.js`);
  await precompressDir(deepChatDir);
  return sizes;
}

/**
 * Runs the benchmark's build of the production server as `npm start` does, forwarding to `providerBaseURL`, framed by
 * the host site at `hostOrigin`.
 */
export const startServer = (providerBaseURL: string, hostOrigin: string) =>
  startProductionServer(`${BUILD_DIR}server/main.js`, {
    FRAME_ANCESTORS: hostOrigin,
    LLM_BASE_URL: providerBaseURL,
    LLM_API_KEY: 'bench-key-not-real',
    LLM_MODEL: 'bench-model',
    // The benchmark sends about a thousand messages a minute from one address; the limiter stays on the path.
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
