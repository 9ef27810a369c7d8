import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Logger } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILD_INFO_FILE, PROXY_BASE_PATH } from '../contract/llm.ts';
import { CATALOGUES } from '../locales/catalogues.ts';
import { LANGUAGES, pageFileName } from '../locales/languages.ts';
import { pageTemplatesDir } from './pages/page-html.ts';
import { DIRECT_MODE_WARNING } from './vite/vite-plugin.ts';

// Sentinels: if any of these strings appears in the output, a server-side secret reached the browser.
const SERVER_TOKEN_IN_DOTENV = 'server-token-from-dotenv-5e1d';
const SERVER_TOKEN_IN_PROCESS = 'server-token-from-process-env-8a2b';
const SERVER_BASE_URL = 'https://server-only-provider.invalid/v1';
const DIRECT_TOKEN = 'direct-mode-token-c47e';

const root = process.cwd();
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'build-test-'));
  vi.stubEnv('NODE_ENV', 'production');
  for (const name of ['VITE_LLM_API_KEY', 'VITE_LLM_BASE_URL', 'VITE_LLM_MODEL', 'LLM_BASE_URL']) {
    vi.stubEnv(name, undefined);
  }
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.stubEnv('NODE_ENV', 'production');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(work, { recursive: true, force: true });
});

function capturingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = {
    info: () => undefined,
    warn: (message) => void warnings.push(message),
    warnOnce: (message) => void warnings.push(message),
    error: (message) => void warnings.push(message),
    clearScreen: () => undefined,
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  return { logger, warnings };
}

/** The app's real production build (the project's vite.config.ts), with `.env` files from `envDir` only. */
async function buildApp(name: string, dotenv: string) {
  const envDir = join(work, `${name}-env`);
  const outDir = join(work, `${name}-out`);
  await rm(envDir, { recursive: true, force: true });
  await mkdir(envDir, { recursive: true });
  await writeFile(join(envDir, '.env'), dotenv);
  const { logger, warnings } = capturingLogger();
  await build({
    root,
    configFile: join(root, 'vite.config.ts'),
    mode: 'production',
    envDir,
    customLogger: logger,
    // Warnings still reach the logger; this only silences the progress lines written straight to stdout.
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  const entries = await readdir(outDir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  const text = (
    await Promise.all(files.filter((file) => !/\.(br|gz)$/.test(file)).map((file) => readFile(file, 'utf8')))
  ).join('\n');
  return { files, text, warnings };
}

/**
 * The builds the tests read, each made once, by whichever test asks first: a full build takes 15 to 30 s of a core, and
 * a page's title or placeholder does not depend on the server's own variables, nor the direct-mode warning on the
 * site's configuration. The variables a build is made with are set here, for the build.
 */
const builds = {
  /** Proxy mode, with a token in `.env` and in the process's environment that must reach neither. */
  proxy: once(() => {
    vi.stubEnv('LLM_API_KEY', SERVER_TOKEN_IN_PROCESS);
    return buildApp('proxy', `LLM_API_KEY=${SERVER_TOKEN_IN_DOTENV}\nLLM_BASE_URL=${SERVER_BASE_URL}\n`);
  }),
  /** Direct mode (a key in `.env`), with a site's configuration. */
  direct: once(async () => {
    const configFile = join(work, 'site.yaml');
    await writeFile(
      configFile,
      'title: Acme <Help>\nwelcome: "**Hi** there"\nstarters: [What do you sell?]\naccent: "#7e22ce"\n',
    );
    vi.stubEnv('ASSISTANT_CONFIG', configFile);
    return buildApp('direct', `VITE_LLM_API_KEY=${DIRECT_TOKEN}\n`);
  }),
};

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

describe('the production build', () => {
  it('in proxy mode contains neither the token nor any LLM_API_KEY value, and calls its own origin', async () => {
    const { files, text, warnings } = await builds.proxy();

    expect(text).toContain(PROXY_BASE_PATH);
    expect(text).not.toContain(SERVER_TOKEN_IN_DOTENV);
    expect(text).not.toContain(SERVER_TOKEN_IN_PROCESS);
    expect(text).not.toContain('server-only-provider');
    // Nothing an owner cannot act on (issue 38: the bundler's debugName notice, Vite's mixed script loading): nothing.
    expect(warnings).toEqual([]);
    // The Stately inspector is for development only.
    expect(text).not.toContain('stately.ai');
    // The production server's compressed copies were written too.
    expect(files.some((file) => /assets\/.+\.js\.br$/.test(file))).toBe(true);
    expect(files.some((file) => /assets\/.+\.js\.gz$/.test(file))).toBe(true);
    // What tells `npm start` that this page needs its proxy.
    expect(JSON.parse(await readFile(join(work, 'proxy-out', BUILD_INFO_FILE), 'utf8'))).toEqual({ mode: 'proxy' });
  }, 60_000);

  it('in direct mode warns that the token is embedded in the bundle', async () => {
    const { text, warnings } = await builds.direct();

    expect(warnings.join('\n')).toContain(DIRECT_MODE_WARNING);
    // Which is exactly what the warning is about.
    expect(text).toContain(DIRECT_TOKEN);
    // What lets `npm start` serve it without a token of its own, and allow the provider in its CSP.
    expect(JSON.parse(await readFile(join(work, 'direct-out', BUILD_INFO_FILE), 'utf8'))).toEqual({
      mode: 'direct',
      providerOrigin: 'https://router.huggingface.co',
    });
  }, 60_000);

  it("writes finished pages: the language's own title, no placeholder; the templates only beside the client", async () => {
    await builds.proxy();
    const outDir = join(work, 'proxy-out');
    for (const language of LANGUAGES) {
      const page = await readFile(join(outDir, pageFileName(language)), 'utf8');
      expect(page, language).not.toMatch(/%[A-Z][A-Z_]*%/);
      expect(page, language).toContain(`<title>${CATALOGUES[language].title}</title>`);
      expect(page, language).toContain(`${CATALOGUES[language].title}</h1>`);
      expect(page, language).not.toContain('ai-assistant-settings');
      // The server's template, which no static host may serve: beside the client folder, not in it.
      expect(await readFile(join(pageTemplatesDir(outDir), pageFileName(language)), 'utf8')).toContain(
        '%AI_ASSISTANT_TITLE%',
      );
    }
  }, 60_000);

  it("in direct mode bakes the site's title, welcome, starters and accent into every page", async () => {
    await builds.direct();
    for (const language of LANGUAGES) {
      const page = await readFile(join(work, 'direct-out', pageFileName(language)), 'utf8');
      expect(page, language).not.toMatch(/%[A-Z][A-Z_]*%/);
      expect(page, language).toContain('<title>Acme &lt;Help&gt;</title>');
      expect(page, language).toContain('Acme &lt;Help&gt;</h1>');
      expect(page, language).toContain(':root{--ai-accent:#7e22ce;--ai-accent-ring:#7e22ce}');
      const settings = /id="ai-assistant-settings">(.*?)<\/script>/.exec(page)?.[1] ?? '{}';
      expect(JSON.parse(settings), language).toEqual({
        title: 'Acme <Help>',
        welcome: '**Hi** there',
        starters: ['What do you sell?'],
        history: 0,
      });
    }
  }, 60_000);
});
