import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createServer, type PreviewServer, preview, type ViteDevServer } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMBED_ACCENT_SENTINEL } from '../../contract/embed.ts';
import { CHAT_COMPLETIONS_PATH } from '../../contract/llm.ts';
import { CATALOGUES } from '../../locales/catalogues.ts';
import { FAKE_REPLY, type FakeProvider, startFakeProvider } from '../../testing/fake-provider.ts';
import { awayFromMinuteEdge, ROOT_DIR } from '../../testing/production-app.ts';
import { startRedisServer } from '../../testing/redis-server.ts';
import { recordingLogger } from '../../testing/vite-logger.ts';
import { llmServer } from './vite-plugin.ts';

const TOKEN = 'dev-server-token-for-tests';
const SERVER_VARIABLES = [
  'LLM_API_KEY',
  'LLM_BASE_URL',
  'LLM_MODEL',
  'LLM_DEMO',
  'LLM_TIMEOUT_MS',
  'RATE_LIMIT_PER_MINUTE',
  'TRUST_PROXY',
  'FRAME_ANCESTORS',
  'CSP_CONNECT_SRC',
  'VITE_LLM_API_KEY',
  'VITE_LLM_BASE_URL',
  'VITE_LLM_MODEL',
  'VITE_LLM_TIMEOUT_MS',
  'ASSISTANT_CONFIG',
  'REDIS_URL',
];

let root: string;
let provider: FakeProvider;
const servers: (ViteDevServer | PreviewServer)[] = [];

beforeAll(async () => {
  // Whatever the developer running the tests has exported must not decide what these servers do.
  for (const name of SERVER_VARIABLES) vi.stubEnv(name, undefined);
  provider = await startFakeProvider();
  root = await mkdtemp(join(tmpdir(), 'vite-plugin-'));
  // The servers' data (knowledge, counts) in the test's folder, never in the project's own ./data.
  vi.stubEnv('DATA_DIR', join(root, 'data'));
  await writeFile(
    join(root, 'index.html'),
    '<!doctype html><html lang="en"><head><title>AI Assistant</title></head><body><div id="root"></div></body></html>',
  );
  await mkdir(join(root, 'dist'));
  await writeFile(join(root, 'dist', 'index.html'), '<!doctype html><html><body>built</body></html>');
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(join(root, '.env'), { force: true });
  provider.requests.length = 0;
});

/**
 * Vite's own command line on the project (`vite build`, or `vite` for the dev server), in a process of its own, with
 * only `env` and what it needs to run: the exit code and everything it printed.
 */
function runVite(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['node_modules/vite/bin/vite.js', ...args], {
    cwd: ROOT_DIR,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  // A command that does not stop on its own (a dev server that started after all) is stopped, and fails the test.
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    }),
  );
}

afterAll(async () => {
  vi.unstubAllEnvs();
  await provider.close();
  await rm(root, { recursive: true, force: true });
});

async function startDev() {
  const { lines, logger } = recordingLogger();
  const server = await createServer({
    configFile: false,
    root,
    envDir: root,
    mode: 'development',
    customLogger: logger,
    plugins: [llmServer()],
    server: { port: 0, host: '127.0.0.1', ws: false },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  servers.push(server);
  await server.listen();
  if (!server.httpServer) throw new Error('The dev server has no HTTP server');
  return { url: `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`, lines, server };
}

async function startPreview() {
  const { lines, logger } = recordingLogger();
  const server = await preview({
    configFile: false,
    root,
    envDir: root,
    customLogger: logger,
    plugins: [llmServer()],
    build: { outDir: 'dist' },
    preview: { port: 0, host: '127.0.0.1' },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`, lines, server };
}

const ask = (url: string, content = 'hello') =>
  fetch(url + CHAT_COMPLETIONS_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content }], max_tokens: 250, temperature: 0.7 }),
  });

/** Polls `condition` (every 20 ms) until it holds, for at most 10 s. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the dev server (npm run dev)', () => {
  it('answers with the demo responder when nothing is configured, and says so at start-up', async () => {
    const { url, lines } = await startDev();
    const response = await ask(url);
    const content: string = (await response.json()).choices[0].message.content;

    expect(response.status).toBe(200);
    expect(content).toMatch(/demo/i);
    expect(lines.join('\n')).toMatch(/No LLM_API_KEY is set.*demo responder/);
    expect(provider.requests).toHaveLength(0);
  });

  it('forwards to the provider with the token from .env, which stays on the server', async () => {
    await writeFile(
      join(root, '.env'),
      `LLM_API_KEY=${TOKEN}\nLLM_BASE_URL=${provider.baseURL}\nLLM_MODEL=dev/model\n`,
    );
    const { url, lines } = await startDev();
    const response = await ask(url);
    const text = await response.text();
    const page = await (await fetch(`${url}/`)).text();

    expect(JSON.parse(text).choices[0].message.content).toBe(FAKE_REPLY);
    expect(provider.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(provider.requests[0].body).toMatchObject({ model: 'dev/model' });
    expect(text).not.toContain(TOKEN);
    expect(page).not.toContain(TOKEN);
    expect(lines.join('\n')).toContain(`proxy to ${provider.baseURL} (model dev/model)`);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('counts the rate limit in Redis with REDIS_URL, as npm start does: two dev servers share one limit', async () => {
    const redis = await startRedisServer();
    try {
      await writeFile(join(root, '.env'), `REDIS_URL=${redis.url}/5\nRATE_LIMIT_PER_MINUTE=2\n`);
      const [first, second] = [await startDev(), await startDev()];
      const redisState = async (url: string) =>
        ((await (await fetch(`${url}/readyz`)).json()) as { redis: string }).redis;
      for (const { url } of [first, second]) await until(async () => (await redisState(url)) === 'reachable', 'Redis');
      await awayFromMinuteEdge();
      const statuses = [];
      for (const { url } of [first, first, second]) statuses.push((await ask(url)).status);

      // Counted in this process's memory, the second server would let its first request through.
      expect(statuses).toEqual([200, 200, 429]);
      const reader = new Redis(`${redis.url}/5`);
      const keys = await reader.keys('ai-assistant:rate:*');
      reader.disconnect();
      expect(keys).toHaveLength(1);
    } finally {
      await Promise.all(servers.splice(0).map((server) => server.close()));
      await redis.stop();
    }
  });

  it("leaves everything outside the proxy path to Vite, with production's frame policy alone", async () => {
    const { url } = await startDev();
    const page = await fetch(`${url}/`);
    const unknown = await fetch(`${url}/api/llm/v1/models`);

    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    // Vite's HMR client needs inline scripts and a websocket that the rest of the production policy forbids.
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'self'");
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(unknown.status).toBe(404);
  });

  it('follows the configuration file and the folder sources: a saved change answers with no restart by hand', async () => {
    const site = join(root, 'site');
    const other = join(root, 'other-site');
    await mkdir(site);
    await mkdir(other);
    const hours = (text: string) => `# Opening hours\n${text} ${'Our shop sells garden tools. '.repeat(10)}\n`;
    const configWith = (folder: string) =>
      `knowledge:\n  - path: ./${folder}\n    url: https://shop.example.com/help/\n`;
    await writeFile(join(site, 'hours.md'), hours('The shop opens at nine on weekdays.'));
    await writeFile(join(other, 'hours.md'), hours('The shop opens at noon on Sundays.'));
    await writeFile(join(root, 'assistant.config.yaml'), configWith('site'));
    await writeFile(
      join(root, '.env'),
      `LLM_API_KEY=${TOKEN}\nLLM_BASE_URL=${provider.baseURL}\nDATA_DIR=${join(root, 'data')}\n`,
    );
    try {
      const { url, lines } = await startDev();
      /** What the provider was given for a question on the opening hours. */
      const material = async () => {
        await (await ask(url, 'When does the shop open?')).text();
        return JSON.stringify(provider.requests.at(-1)?.body);
      };
      const answersWith = (text: string) =>
        vi.waitFor(async () => expect(await material()).toContain(text), { timeout: 60_000, interval: 200 });
      await answersWith('opens at nine on weekdays');

      await writeFile(join(site, 'hours.md'), hours('The shop opens at ten on weekdays.'));
      await answersWith('opens at ten on weekdays');

      // A mistake is said, and the last good configuration keeps answering.
      await writeFile(join(root, 'assistant.config.yaml'), 'knowledge:\n  - pathh: ./other-site\n');
      await vi.waitFor(() => expect(lines.join('\n')).toContain('the server keeps the configuration it has'), {
        timeout: 30_000,
      });
      expect(await material()).toContain('opens at ten on weekdays');

      await writeFile(join(root, 'assistant.config.yaml'), configWith('other-site'));
      await answersWith('opens at noon on Sundays');
      expect(lines.join('\n')).toContain('assistant.config.yaml changed: restarting on it');
    } finally {
      await rm(join(root, 'assistant.config.yaml'), { force: true });
    }
  }, 240_000);

  it('frames as npm start does, from the same FRAME_ANCESTORS, and logs a refused host page', async () => {
    await writeFile(join(root, '.env'), 'FRAME_ANCESTORS=self https://www.example.com\n');
    const { url, lines } = await startDev();
    const framed = (host: string) => fetch(`${url}/?embed=${encodeURIComponent(host)}`);
    const allowed = await framed('https://www.example.com');
    await framed('https://shop.example.org');
    await framed('https://shop.example.org');

    expect(allowed.headers.get('content-security-policy')).toBe("frame-ancestors 'self' https://www.example.com");
    // An allow-list: X-Frame-Options, which cannot say it, is left out, as in production.
    expect(allowed.headers.get('x-frame-options')).toBeNull();
    const refused = lines.filter((line) => line.includes('FRAME_ANCESTORS'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('add https://shop.example.org to FRAME_ANCESTORS');
  });
});

describe('the preview server (vite preview)', () => {
  it('serves the build with the production headers and the same proxy', async () => {
    await writeFile(join(root, '.env'), 'FRAME_ANCESTORS=none\n');
    const { url } = await startPreview();
    const page = await fetch(`${url}/`);
    const response = await ask(url);

    expect(await page.text()).toContain('built');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('lets a direct-mode page reach its provider through the CSP', async () => {
    await writeFile(join(root, '.env'), `VITE_LLM_API_KEY=${TOKEN}\nVITE_LLM_BASE_URL=https://llm.example.com/v1\n`);
    const { url, lines } = await startPreview();
    const page = await fetch(`${url}/`);

    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self' https://llm.example.com;");
    expect(lines.join('\n')).toContain('Direct mode');
  });
});

describe('closing the dev and the preview server', () => {
  it("writes the owner's counts before the server says it is closed", async () => {
    for (const start of [startDev, startPreview]) {
      const dataDir = await mkdtemp(join(root, 'counts-'));
      vi.stubEnv('DATA_DIR', dataDir);
      const { url, server } = await start();
      expect((await ask(url)).status).toBe(200);
      await server.close();
      const counts = JSON.parse(await readFile(join(dataDir, 'feedback', 'counts.json'), 'utf8'));
      expect(Object.values(counts.days), start.name).toEqual([expect.objectContaining({ messages: 1 })]);
    }
    vi.stubEnv('DATA_DIR', join(root, 'data'));
  });
});

describe('the site configuration in dev and preview', () => {
  const configFile = () => join(root, 'assistant.config.yaml');
  afterEach(async () => {
    await rm(configFile(), { force: true });
  });

  it('fills the dev page and the preview page with the settings, as npm start does', async () => {
    await writeFile(
      configFile(),
      'title: Acme\nstarters: [What do you sell?]\naccent: "#7e22ce"\ninstructions: SECRET-5b1\n',
    );
    const dev = await (await fetch(`${(await startDev()).url}/`)).text();
    const preview = await fetch(`${(await startPreview()).url}/`);
    const previewed = await preview.text();

    for (const page of [dev, previewed]) {
      expect(page).toContain(
        '<script type="application/json" id="ai-assistant-settings">{"title":"Acme","starters":["What do you sell?"],"history":0}</script>',
      );
      expect(page).toContain(':root{--ai-accent:#7e22ce;--ai-accent-ring:#7e22ce}');
      expect(page).not.toContain('SECRET-5b1');
    }
    expect(previewed).toContain('built');
    expect(preview.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it("reads the site's pages in dev, and the demo reply says which a question found", async () => {
    await mkdir(join(root, 'site-docs'), { recursive: true });
    await writeFile(join(root, 'site-docs', 'returns.md'), '# Returns\n\nReturn any garden tool within thirty days.\n');
    await writeFile(configFile(), 'knowledge:\n  - path: ./site-docs\n    url: https://www.example.com/docs/\n');
    const { url } = await startDev();

    // Polled at /readyz, which the rate limit does not count (asking chat every 20 ms would meet it first).
    await until(async () => (await fetch(`${url}/readyz`)).status === 200, 'the first index');
    const reply = (await (await ask(url, 'Can I return a garden tool?')).json()) as {
      choices: { message: { content: string } }[];
      sources: unknown;
    };

    expect(reply.choices[0].message.content).toContain("Your site's pages gave passages from [1].");
    expect(reply.sources).toEqual([
      {
        n: 1,
        title: 'Returns',
        url: 'https://www.example.com/docs/returns#returns',
        page: 'https://www.example.com/docs/returns',
      },
    ]);
    await rm(join(root, 'site-docs'), { recursive: true, force: true });
  });

  it('answers /healthz and /readyz with JSON in dev and preview, as npm start does, not with the page', async () => {
    for (const { url } of [await startDev(), await startPreview()]) {
      const health = await fetch(`${url}/healthz`);
      expect(health.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', redis: 'not used' });
    }
  });

  it("serves /embed.js with the site's title, accent and language in dev and preview, as npm start does", async () => {
    await writeFile(configFile(), 'title: Acme\naccent: "#7e22ce"\nlanguage: fr\n');
    await writeFile(
      join(root, 'dist', 'embed.js'),
      `d.label||\`Chat with AI Assistant\`;c.innerHTML=\`:host{--ai-accent:${EMBED_ACCENT_SENTINEL}}\`;`,
    );
    const dev = await (await fetch(`${(await startDev()).url}/embed.js`)).text();
    const preview = await (await fetch(`${(await startPreview()).url}/embed.js`)).text();

    for (const loader of [dev, preview]) {
      expect(loader).toContain('`Discuter avec Acme`');
      expect(loader).toMatch(/light-dark\(#7e22ce,#[0-9a-f]{6}\)/);
      expect(loader).not.toContain(EMBED_ACCENT_SENTINEL);
    }
    // The dev server's is the real loader, bundled for the request.
    expect(dev).toContain('attachShadow');
  });

  it("serves the dev page in the language its ?lang= asks for, else the site's, with that catalogue alone", async () => {
    await writeFile(configFile(), 'language: de\n');
    const { url } = await startDev();
    const hebrew = await (await fetch(`${url}/?lang=he`)).text();
    expect(hebrew).toContain('<html lang="he" dir="rtl">');
    expect(hebrew).toContain(`<title>${CATALOGUES.he.title}</title>`);
    expect(hebrew).not.toContain(CATALOGUES.de.placeholder);
    const german = await (await fetch(`${url}/`)).text();
    expect(german).toContain('<html lang="de" dir="ltr">');
    expect(german).toContain(CATALOGUES.de.placeholder);
  });

  // Run as a developer runs them, in a process: a configuration error ends the command as `npm start` does.
  it.each([
    ['build', ['build']],
    ['dev', ['--port', '0', '--strictPort', 'false']],
  ])(
    'ends `vite %s` on a bad key with what npm start prints: the key, the file, the line, no stack',
    async (_, args) => {
      await writeFile(configFile(), 'title: Acme\nstarters:\n  - ok\naccent: #15803d\nhistory: 99\n');

      const { code, output } = await runVite(args, { ASSISTANT_CONFIG: configFile() });

      expect(code).toBe(1);
      expect(output).toBe(
        `[server] Invalid configuration in ${configFile()}:\n` +
          '  - accent (line 4): is empty: YAML reads everything after # as a comment. Put the value in quotes: ' +
          'accent: "#15803d"\n' +
          '  - history (line 5): 99 must be a whole number from 0 to 10\n',
      );
    },
  );

  it('ends `vite build` on instructions in a direct-mode build, and the dev server on a bad variable', async () => {
    await writeFile(configFile(), 'instructions: Be brief.\n');
    const build = await runVite(['build'], {
      ASSISTANT_CONFIG: configFile(),
      VITE_LLM_API_KEY: 'direct-key-for-tests',
    });
    expect(build.code).toBe(1);
    expect(build.output).toMatch(
      /^\[server\] Invalid configuration in .*\n {2}- instructions \(line 1\): not allowed in a direct-mode build/,
    );
    expect(build.output).not.toMatch(/\n\s+at /);

    await writeFile(configFile(), 'title: Acme\n');
    const dev = await runVite(['--port', '0'], {
      ASSISTANT_CONFIG: configFile(),
      TRUST_PROXY: '0.0.0.0/0',
      RATE_LIMIT_PER_MINUT: '5',
    });
    expect(dev.code).toBe(1);
    // A misspelt setting is said first, as every command says it at start-up.
    expect(dev.output).toMatch(
      /^ {2}\[llm-proxy\] RATE_LIMIT_PER_MINUT is not a setting of AI Assistant and is ignored: did you mean RATE_LIMIT_PER_MINUTE\?\n\[server\] Invalid server configuration: TRUST_PROXY must be /,
    );
    expect(dev.output).not.toMatch(/\n\s+at /);
  });
});
