import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const ROOT_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * `vite build` with the project's own config, as `npm run build` runs it, with exactly these `VITE_LLM_*` values.
 * Returns what the build printed (the size budget's report is in it).
 */
export async function viteBuild(args: string[], llmEnv: Record<string, string> = {}): Promise<string> {
  // Vite lets variables already in the environment win over `.env` files, so an empty key really means "no key"
  // (proxy mode), whatever a developer's `.env` says.
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    VITE_LLM_API_KEY: '',
    VITE_LLM_BASE_URL: '',
    VITE_LLM_MODEL: '',
    VITE_LLM_TIMEOUT_MS: '',
    VITE_LLM_SLOW_MS: '',
    VITE_LLM_STREAM: '',
    ...llmEnv,
  };
  try {
    const { stdout, stderr } = await run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', ...args], {
      cwd: ROOT_DIR,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout + stderr;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`vite build ${args.join(' ')} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/** Builds the production server alone (`vite build --ssr server/main.ts`) into `outDir`. */
export async function buildServer(outDir: string): Promise<void> {
  await viteBuild(['--ssr', 'server/main.ts', '--outDir', outDir, '--emptyOutDir']);
}

/**
 * The production server alone in `${dir}/server`, next to a stand-in client (`${dir}/client/index.html`, plus
 * `extraClientFiles`): enough for what a page's look does not matter to. Built here, or copied from `built`, a folder
 * `buildServer` filled (a test run builds it once for all its files). `dir` must be inside the project (e.g. under
 * node_modules/.cache), so that the server resolves its dependencies as dist/server does. Returns the entry to start.
 */
export async function buildServerOnly(
  dir: string,
  extraClientFiles: Record<string, string> = {},
  built?: string,
): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  if (built) await cp(built, `${dir}/server`, { recursive: true });
  else await buildServer(`${dir}/server`);
  await mkdir(`${dir}/client`, { recursive: true });
  const files = { 'index.html': '<!doctype html><title>AI Assistant</title>', ...extraClientFiles };
  for (const [name, text] of Object.entries(files)) await writeFile(`${dir}/client/${name}`, text);
  return `${dir}/server/main.js`;
}

export interface ProductionServer {
  url: string;
  /** Everything the server printed, line by line. */
  output: string[];
  /** Where its metrics are served, when it was given `METRICS_PORT`. */
  metricsUrl?: string;
  /** The process started: the server's, or npm's for `startWithNpm`. */
  pid: number;
  /** Sends `signal` and resolves with the exit code once the process has exited. */
  signal(signal: NodeJS.Signals): Promise<number | null>;
  close(): Promise<void>;
}

const METRICS = /metrics on (http:\/\/\S+)/;

const STARTED = /AI Assistant on (http:\/\/\S+?):? /;

/**
 * Runs a build of the production server (`server/main.ts`, as `npm start` runs `dist/server/main.js`) on a free port
 * of 127.0.0.1, configured only through `env`. It finds its client at `../client` from its own file.
 */
export function startProductionServer(entry: string, env: Record<string, string>): Promise<ProductionServer> {
  // Not the project folder: the server reads `.env` files from its working directory, and a developer's must not
  // change what is measured or tested.
  return startServerProcess(process.execPath, [entry], dirname(entry), env);
}

/**
 * Runs `npm start` in `projectDir` as a supervisor would: the project's own start script, against the build in
 * `projectDir/dist` (see `buildServerOnly`). `pid` is npm's, and `signal` goes to npm, not to the server.
 */
export async function startWithNpm(projectDir: string, env: Record<string, string>): Promise<ProductionServer> {
  const { scripts } = JSON.parse(await readFile(`${ROOT_DIR}package.json`, 'utf8')) as PackageJson;
  await writeFile(`${projectDir}/package.json`, JSON.stringify({ name: 'npm-start-test', scripts }));
  return startServerProcess('npm', ['start'], projectDir, { HOME: process.env.HOME ?? projectDir, ...env });
}

interface PackageJson {
  scripts: Record<string, string>;
}

async function startServerProcess(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<ProductionServer> {
  const output: string[] = [];
  // A data folder of its own (the owner's counts), gone with the server, unless the test gives one to look into.
  const ownData = env.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), 'ai-assistant-data-'));
  const child = spawn(command, args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      ...(ownData ? { DATA_DIR: ownData } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit').then(() => {
    if (ownData) rmSync(ownData, { recursive: true, force: true });
    return child.exitCode;
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    return exited;
  };
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await signal('SIGTERM');
    clearTimeout(killer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      // The server logs every request: read it all, or a full pipe would stall it.
      const onOutput = (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          output.push(line);
          const started = STARTED.exec(line);
          if (started) resolve(started[1]);
        }
      };
      child.stdout.on('data', onOutput);
      child.stderr.on('data', onOutput);
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`The production server exited (code ${code}) before listening:\n${output.join('\n')}`)),
      );
    });
    const metricsUrl = output.map((line) => METRICS.exec(line)?.[1]).find(Boolean);
    return { url, output, metricsUrl, pid: child.pid as number, signal, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Rate-limit windows are whole clock minutes: a test that counts to a limit must not straddle two of them. */
export async function awayFromMinuteEdge(needsMs = 5_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - needsMs) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}
