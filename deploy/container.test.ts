import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, copyFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_COMPLETIONS_PATH, MAX_TOKENS } from '../contract/llm.ts';
import { HANDOFF_MIGRATIONS_DIR } from '../server/handoff/outbox-types.ts';
import { MIGRATIONS_DIR } from '../server/knowledge/store/postgres-store.ts';
import { stoppedLine } from '../server/startup-line.ts';
import { type BuiltImage, buildAssistantImage, PLANTED_TOKEN } from '../testing/assistant-image.ts';
import {
  bridgeGateway,
  compose,
  docker,
  dockerMissing,
  ensureNodeImage,
  ensureStandInImages,
  imageSize,
  startDocker,
  tempDir,
  waitFor,
} from '../testing/docker.ts';
import { FAKE_REPLY, type FakeProvider, startFakeProvider } from '../testing/fake-provider.ts';
import { type KnowledgeSite, sitemapXml, sitePage, startKnowledgeSite } from '../testing/knowledge-site.ts';
import { ROOT_DIR } from '../testing/production-app.ts';
import { freePort } from '../testing/redis-server.ts';

const TAG = 'ai-assistant:container-test';
/** The compose project's name: its containers, network and volumes are its own, whatever else runs here. */
const PROJECT = `ai-assistant-test-${randomUUID().slice(0, 8)}`;
/** The image's budget: the Node base (about 190 MB) and the built app, without a node_modules. */
const SIZE_BUDGET = 250 * 1024 * 1024;
/** Readiness waits are generous (a busy 2-core machine); none of them is what a test checks. */
const READY_MS = 120_000;
const FAKE_TOKEN = 'fake-container-test-token';
const PAGE_TEXT = 'Our greenhouse shop opens at nine on weekdays.';
/** PID 1's name, then each process whose parent is PID 1: its name, parent and user. */
const PROCESSES =
  'cat /proc/1/comm; for p in /proc/[0-9]*; do set -- $(cat $p/stat); ' +
  'if [ "$4" = 1 ]; then echo "$(cat $p/comm) ppid=$4 uid=$(stat -c %u $p)"; fi; done';

const SQL_FILES = 'cd /app/dist/server && ls migrations/*.sql && ls handoff-migrations/*.sql';
const sqlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort();

const missing = dockerMissing();
if (missing) console.warn(`[container test] skipped: ${missing}`);

describe.skipIf(missing !== undefined)('the Dockerfile, built and run in real Docker', () => {
  let daemon: { stop(): Promise<void> } | undefined;
  let image: BuiltImage;
  let provider: FakeProvider;
  let site: KnowledgeSite;
  let configDir: string;
  let composeDir: string | undefined;
  let standIns: ReturnType<typeof ensureStandInImages>;
  const volume = `ai-assistant-test-${randomUUID().slice(0, 8)}`;
  const containers: string[] = [];

  beforeAll(async () => {
    const started = Date.now();
    daemon = await startDocker();
    const base = await ensureNodeImage();
    // The compose test's redis:7 and postgres:16 are made from the same base, beside the assistant's image: on a fresh
    // machine each takes minutes. Its test waits for them (a failure is its own).
    standIns = ensureStandInImages();
    standIns.catch(() => undefined);
    image = await buildAssistantImage(TAG);
    // Where a container on any network (the host's, or the compose project's own) reaches this machine's servers.
    const host = await bridgeGateway();
    provider = await startFakeProvider({ host });
    site = await startKnowledgeSite(
      {
        '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
        '/hours': { body: sitePage({ title: 'Opening hours', body: `<h1>Opening hours</h1><p>${PAGE_TEXT}</p>` }) },
      },
      { host },
    );
    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${site.origin}/hours`]) });
    configDir = await tempDir('container-config-');
    await chmod(configDir, 0o755); // read by the image's user, not root
    await writeFile(join(configDir, 'assistant.config.yaml'), `knowledge:\n  - sitemap: ${site.origin}/sitemap.xml\n`);
    console.log(
      `[container test] base image ${base.built ? 'built' : 'reused'} in ${base.ms} ms; ` +
        `image built in ${image.buildMs} ms; ready to run after ${Date.now() - started} ms`,
    );
  }, 1_500_000);

  afterAll(async () => {
    for (const name of containers) await docker(['rm', '-f', name]).catch(() => {});
    await docker(['volume', 'rm', '-f', volume]).catch(() => {});
    if (composeDir) await compose(composeDir, PROJECT, ['down', '--volumes', '--timeout', '10']).catch(() => {});
    for (const dir of [configDir, composeDir]) if (dir) await rm(dir, { recursive: true, force: true });
    await provider?.close();
    await site?.close();
    await daemon?.stop();
  }, 120_000);

  /**
   * Starts the image on the host network (the fake provider and the site listen on this machine's 127.0.0.1) on a
   * port of its own, with the site's configuration mounted read-only and the data volume, health checked every second.
   */
  async function runAssistant() {
    const name = `ai-assistant-test-${randomUUID().slice(0, 8)}`;
    const port = await freePort();
    containers.push(name);
    await docker([
      'run', '--detach', '--name', name, '--network', 'host',
      '--health-interval', '1s', '--health-retries', '3', '--health-start-period', '0s',
      '--env', `PORT=${port}`, '--env', 'HOST=127.0.0.1',
      '--env', `LLM_API_KEY=${FAKE_TOKEN}`, '--env', `LLM_BASE_URL=${provider.baseURL}`,
      '--env', 'ASSISTANT_CONFIG=/config/assistant.config.yaml',
      '--volume', `${configDir}:/config:ro`, '--volume', `${volume}:/data`,
      TAG,
    ]); // biome-ignore format: the flags read best in pairs
    const url = `http://127.0.0.1:${port}`;
    const answering = () =>
      fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
    await waitFor(`${name} answering /healthz`, answering, READY_MS).catch(async (error) => {
      throw new Error(`${error.message}; its log:\n${await logs(name)}`);
    });
    return { name, url };
  }

  const logs = async (name: string) => {
    const { stdout, stderr } = await docker(['logs', name]);
    return stdout + stderr;
  };

  const ask = (url: string, content: string) =>
    fetch(url + CHAT_COMPLETIONS_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: MAX_TOKENS }),
    });

  it('answers /healthz and a chat, turns healthy, runs as a user under an init, and stops on SIGTERM within 10 s', async () => {
    const { name, url } = await runAssistant();
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    await waitFor('/readyz 200 (the site synced into /data)', () => fetch(`${url}/readyz`).then((r) => r.ok), READY_MS);

    const response = await ask(url, 'When does the greenhouse shop open?');
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe(FAKE_REPLY);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0].headers.authorization).toBe(`Bearer ${FAKE_TOKEN}`);
    expect(JSON.stringify(provider.requests[0].body)).toContain(PAGE_TEXT);

    const health = () => docker(['inspect', '--format', '{{.State.Health.Status}}', name]).then((r) => r.stdout.trim());
    await waitFor('the health check turning healthy', async () => (await health()) === 'healthy', READY_MS);

    // PID 1 is tini, and the server is its child, run by a user other than root (the image has no ps: /proc is read).
    const processes = await docker(['exec', name, 'sh', '-c', PROCESSES]);
    const [init, server] = processes.stdout.trim().split('\n');
    expect(init).toBe('tini');
    expect(server).toMatch(/^node ppid=1 uid=\d+$/);
    expect(server).not.toContain('uid=0');

    const stopping = Date.now();
    await docker(['stop', '--time', '10', name]);
    const stopMs = Date.now() - stopping;
    console.log(`[container test] docker stop took ${stopMs} ms`);
    expect(stopMs).toBeLessThan(10_000);
    expect(await logs(name)).toContain(stoppedLine('SIGTERM', 0));
    expect((await docker(['inspect', '--format', '{{.State.ExitCode}}', name])).stdout.trim()).toBe('0');
  }, 600_000);

  it('keeps the synced knowledge in the /data volume: a new container answers from it with no page fetched', async () => {
    const fetched = site.requests.length;
    expect(fetched).toBeGreaterThan(0); // the first test's sync read the site
    provider.reset();
    const { url } = await runAssistant();
    await waitFor('/readyz 200 from the volume', () => fetch(`${url}/readyz`).then((r) => r.ok), READY_MS);
    const response = await ask(url, 'When does the greenhouse shop open?');
    expect(response.status).toBe(200);
    expect(JSON.stringify(provider.requests[0].body)).toContain(PAGE_TEXT);
    expect(site.requests.length).toBe(fetched);
  }, 600_000);

  it('is within its size budget and holds no CA, .env, data or node_modules of the build', async () => {
    const size = await imageSize(TAG);
    console.log(
      `[container test] image ${TAG}: ${(size / 1024 / 1024).toFixed(1)} MB (budget ${SIZE_BUDGET / 1024 / 1024} MB)`,
    );
    expect(size).toBeLessThanOrEqual(SIZE_BUDGET);

    // The build's CA (the npm_ca secret): no file of the image has its size and its bytes.
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const caFiles = ca
      ? `find / -xdev -type f -size ${statSync(ca).size}c -exec sha256sum {} + | grep ${createHash('sha256').update(readFileSync(ca)).digest('hex')}`
      : 'true';
    const script = [
      'find / -xdev -name ".env*" -print',
      'find / -xdev -type d -name node_modules -not -path "/usr/local/lib/node_modules/*" -not -path /usr/local/lib/node_modules -print',
      `grep -rl ${PLANTED_TOKEN} /app /data`,
      caFiles,
    ]
      .map((command) => `${command} || true`)
      .join('; ');
    const { stdout } = await docker(['run', '--rm', '--entrypoint', 'sh', TAG, '-c', script]);
    expect(stdout).toBe('');
    // The only node_modules is npm's own, in the Node image: the server is one bundle.
    const { stdout: app } = await docker(['run', '--rm', '--entrypoint', 'sh', TAG, '-c', 'ls /app /app/dist']);
    expect(app.split('\n').filter(Boolean)).toEqual([
      '/app:',
      'dist',
      'package.json',
      '/app/dist:',
      'client',
      'server',
    ]);
    // The server reads its SQL migrations from folders beside its bundle: the knowledge store's and the handoff's.
    const { stdout: sql } = await docker(['run', '--rm', '--entrypoint', 'sh', TAG, '-c', SQL_FILES]);
    expect(sql.trim().split('\n')).toEqual([
      ...sqlFiles(MIGRATIONS_DIR).map((name) => `migrations/${name}`),
      ...sqlFiles(HANDOFF_MIGRATIONS_DIR).map((name) => `handoff-migrations/${name}`),
    ]);
  }, 300_000);
  it('comes up with Redis and PostgreSQL from compose.yaml, healthy, with the knowledge in PostgreSQL', async () => {
    const stand = await standIns;
    console.log(
      `[container test] redis:7 and postgres:16 ${stand.built.length ? `built (${stand.built})` : 'reused'} in ${stand.ms} ms`,
    );
    // An owner's folder: the committed compose.yaml as it is, the site's configuration and an .env with the settings.
    composeDir = await tempDir('container-compose-');
    await copyFile(join(ROOT_DIR, 'compose.yaml'), join(composeDir, 'compose.yaml'));
    await writeFile(join(composeDir, 'assistant.config.yaml'), `knowledge:\n  - sitemap: ${site.origin}/sitemap.xml\n`);
    await writeFile(
      join(composeDir, '.env'),
      `LLM_API_KEY=${FAKE_TOKEN}\nASSISTANT_CONFIG=./assistant.config.yaml\nLLM_BASE_URL=${provider.baseURL}\n`,
    );
    provider.reset();
    const fetched = site.requests.length;

    const starting = Date.now();
    // Built above with the npm_ca secret, which docker-compose 1.29 cannot pass: up without building, as the docs say.
    // Port 0: Docker gives the assistant a free port of 127.0.0.1, which `port` then says. A port found free
    // beforehand was once taken by another test's server in the seconds Redis and PostgreSQL take to turn healthy.
    await compose(composeDir, PROJECT, ['up', '--detach', '--no-build'], { ASSISTANT_PORT: '0', ASSISTANT_IMAGE: TAG });
    const published = (await compose(composeDir, PROJECT, ['port', 'assistant', '3000'])).stdout.trim();
    const url = `http://${published}`;
    await waitFor(
      '/readyz 200 (synced into PostgreSQL)',
      () =>
        fetch(`${url}/readyz`).then(
          (r) => r.ok,
          () => false,
        ),
      READY_MS,
    );
    const id = async (service: string) =>
      (await compose(composeDir as string, PROJECT, ['ps', '-q', service])).stdout.trim();
    const assistant = await id('assistant');
    const health = () =>
      docker(['inspect', '--format', '{{.State.Health.Status}}', assistant]).then((r) => r.stdout.trim());
    await waitFor('the assistant turning healthy', async () => (await health()) === 'healthy', READY_MS);
    console.log(`[container test] compose up to a healthy assistant in ${Date.now() - starting} ms`);
    for (const service of ['redis', 'postgres']) {
      expect((await docker(['inspect', '--format', '{{.State.Health.Status}}', await id(service)])).stdout.trim()).toBe(
        'healthy',
      );
    }
    expect(site.requests.length).toBeGreaterThan(fetched); // a new store: the site read again, into PostgreSQL

    const response = await ask(url, 'When does the greenhouse shop open?');
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe(FAKE_REPLY);
    expect(JSON.stringify(provider.requests[0].body)).toContain(PAGE_TEXT);

    const log = await logs(assistant);
    expect(log).toContain('Redis redis://redis:6379');
    expect(log).toContain('knowledge (1 source) kept in PostgreSQL postgres://***@postgres:5432/assistant');
    // compose.yaml's own variables (the port, the image) stay out of the server's settings: nothing is ignored.
    expect(log).not.toContain('is not a setting');
    const sql = (query: string) =>
      id('postgres').then((postgres) =>
        docker(['exec', postgres, 'psql', '-U', 'postgres', '-d', 'assistant', '-tAc', query]),
      );
    expect((await sql('SELECT url FROM knowledge_pages')).stdout.trim()).toBe(`${site.origin}/hours`);
    // The chat's rate-limit count is in Redis.
    const keys = await docker(['exec', await id('redis'), 'redis-cli', 'dbsize']);
    expect(Number(keys.stdout.trim())).toBeGreaterThan(0);
  }, 900_000);
});
