import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { BUILD_INFO_FILE, CHAT_COMPLETIONS_PATH, MAX_TOKENS } from '../contract/llm.ts';
import { type FakeProvider, startFakeProvider } from './fake-provider.ts';
import {
  buildServer,
  buildServerOnly,
  type ProductionServer,
  startProductionServer,
  startWithNpm,
} from './production-app.ts';

export const DIRECT_ORIGIN = 'https://direct-provider.example';
const TOKEN = 'test-upstream-token-scale-7d1e';
/** The fake provider counts words: this prompt is 2 tokens and its reply (FAKE_REPLY) 5, so 7 per exchange. */
export const PROMPT = 'hello there';
export const TOKENS_PER_EXCHANGE = 7;
export const TEST_TIMEOUT_MS = 20_000;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's production server is built, once, by the first file that needs it (testing/server-build-setup.ts). */
    serverBuildDir: string;
  }
}

/**
 * The production server built once for the whole test run: the first file to ask claims the run's folder (a `mkdir`
 * that only one process can win) and builds; the others, in other workers, wait for its `done` or `failed` mark. Each
 * build took about 6 s of a core (15 to 30 s of a busy machine), and seven were made per run, all of the same sources.
 */
async function sharedServerBuild(): Promise<string> {
  const dir = inject('serverBuildDir');
  const built = join(dir, 'server');
  const claimed = await mkdir(dir).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      throw error;
    },
  );
  if (claimed) {
    try {
      await buildServer(built);
    } catch (error) {
      await writeFile(join(dir, 'failed'), String(error));
      throw error;
    }
    await writeFile(join(dir, 'done'), '');
    return built;
  }
  // A guard against a hang only (the hook's own time limit ends the file first): the build is one of the test's parts.
  const deadline = Date.now() + 120_000;
  while (!existsSync(join(dir, 'done'))) {
    if (existsSync(join(dir, 'failed'))) throw new Error(await readFile(join(dir, 'failed'), 'utf8'));
    if (Date.now() > deadline) throw new Error(`No production server was built in ${dir} within 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return built;
}

/**
 * For a test file that runs the built production server as operators do, in separate processes: lays out the run's
 * build of it (and, when asked, a direct-mode build beside it) for the file, starts one fake provider, and stops every server after each
 * test. `name` keeps the file's build apart from other files'. Call it once, at the top of the file.
 */
export function productionHarness(name: string, { direct = false } = {}) {
  /** Under node_modules, so that the built server resolves its dependencies (ioredis, prom-client) as dist/ does. */
  const buildDir = fileURLToPath(new URL(`../node_modules/.cache/${name}-test/`, import.meta.url));
  const running: ProductionServer[] = [];
  const state: { provider?: FakeProvider; proxyEntry?: string; directEntry?: string } = {};

  beforeAll(async () => {
    const [server, provider] = await Promise.all([sharedServerBuild(), startFakeProvider()]);
    state.provider = provider;
    // Laid out as `npm run build` lays it out, so that `npm start` in buildDir runs it too.
    state.proxyEntry = await buildServerOnly(`${buildDir}dist`, {}, server);
    // A direct-mode build as the client build records it: the same server next to a page that calls its provider.
    if (direct) {
      state.directEntry = await buildServerOnly(
        `${buildDir}direct`,
        { [BUILD_INFO_FILE]: JSON.stringify({ mode: 'direct', providerOrigin: DIRECT_ORIGIN }) },
        server,
      );
    }
  }, 60_000);
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
    state.provider?.reset();
  });
  afterAll(async () => {
    await state.provider?.close();
    await rm(buildDir, { recursive: true, force: true });
  });

  const provider = (): FakeProvider => state.provider as FakeProvider;
  /** `npm` is the proxy build run by `npm start`, as a supervisor runs it. */
  async function startServer(env: Record<string, string>, build: 'proxy' | 'direct' | 'npm' = 'proxy') {
    const fullEnv = {
      ...(build === 'direct' ? {} : { LLM_BASE_URL: provider().baseURL, LLM_API_KEY: TOKEN }),
      LLM_TIMEOUT_MS: '5000',
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    };
    const server =
      build === 'npm'
        ? await startWithNpm(buildDir, fullEnv)
        : await startProductionServer((build === 'proxy' ? state.proxyEntry : state.directEntry) as string, fullEnv);
    running.push(server);
    return server;
  }
  return { provider, startServer };
}

export function chat(server: ProductionServer, options: { stream?: boolean; forwardedFor?: string } = {}) {
  return fetch(server.url + CHAT_COMPLETIONS_PATH, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {}),
    },
    body: JSON.stringify({
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: MAX_TOKENS,
      ...(options.stream ? { stream: true } : {}),
    }),
  });
}

/** Sends chat requests one after the other and returns their statuses (bodies read, so connections are reused). */
export async function statuses(...requests: (() => Promise<Response>)[]): Promise<number[]> {
  const result: number[] = [];
  for (const request of requests) {
    const response = await request();
    await response.text();
    result.push(response.status);
  }
  return result;
}

export async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 8_000;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function readiness(server: ProductionServer): Promise<{ status: number; redis: string }> {
  const response = await fetch(`${server.url}/readyz`);
  return { status: response.status, redis: ((await response.json()) as { redis: string }).redis };
}
