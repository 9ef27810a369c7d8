import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { precompressDir } from '../server/precompress.ts';

const run = promisify(execFile);

export const ROOT_DIR = fileURLToPath(new URL('..', import.meta.url));
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

async function vite(args: string[]): Promise<string> {
  // Vite lets variables already in the environment win over `.env` files: an empty key means proxy mode, as shipped.
  const env = {
    ...process.env,
    VITE_LLM_API_KEY: '',
    VITE_LLM_BASE_URL: '',
    VITE_LLM_MODEL: '',
    VITE_LLM_TIMEOUT_MS: '',
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

/**
 * Builds the app as `npm run build` does (client with its size budget and precompressed files, then the server), into
 * the benchmark's folder, and puts the baseline page next to the app with its own compressed copies. Returns the
 * client build's output, which holds the size budget's report.
 */
export async function buildAll(): Promise<string> {
  const clientOutput = await vite(['--outDir', CLIENT_DIR, '--emptyOutDir']);
  await vite(['--ssr', 'server/main.ts', '--outDir', SERVER_DIR, '--emptyOutDir']);
  const baselineDir = `${CLIENT_DIR}/baseline`;
  await mkdir(baselineDir, { recursive: true });
  await cp(BASELINE_SOURCE, baselineDir, { recursive: true });
  await precompressDir(baselineDir);
  return clientOutput;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

const STARTED = /AI Assistant on (http:\/\/\S+?):? /;

/**
 * Runs the production server as `npm start` does (`node dist/server/main.js`, here the benchmark's build of it),
 * configured only through its environment, forwarding to `providerBaseURL`.
 */
export async function startServer(providerBaseURL: string): Promise<RunningServer> {
  const recent: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [`${SERVER_DIR}/main.js`], {
    // Not the project folder: the server reads `.env` files from its working directory.
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      LLM_BASE_URL: providerBaseURL,
      LLM_API_KEY: UPSTREAM_API_KEY,
      LLM_MODEL: MODEL,
      // The benchmark sends about a thousand messages a minute from one address; the limiter stays on the path.
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The server logs every request: read it all (a full pipe would stall the server), keep the end for errors.
  const onOutput = (chunk: Buffer) => {
    recent.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    recent.splice(0, Math.max(0, recent.length - 40));
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);

  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const look = (chunk: Buffer) => {
        const started = STARTED.exec(chunk.toString('utf8'));
        if (started) resolve(started[1]);
      };
      child.stdout?.on('data', look);
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`The production server exited (code ${code}) before listening:\n${recent.join('\n')}`)),
      );
    });
    return { url, close };
  } catch (error) {
    await close();
    throw error;
  }
}
