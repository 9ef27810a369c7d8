import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { E2E_MODEL, type Mode, SERVER_TIMEOUT_MS, serverEntry, UPSTREAM_API_KEY } from './e2e-env';

export interface AppServer {
  url: string;
  /** Everything the server printed, line by line. */
  output: string[];
  close(): Promise<void>;
}

const STARTED = /AI Assistant on (http:\/\/\S+?):? /;

/** What the server is told in each mode. */
function modeEnv(mode: Mode, providerBaseURL: string): Record<string, string> {
  if (mode === 'direct') {
    return {
      // The page calls the provider itself; the server only serves files, so its own chat endpoint is the demo.
      LLM_DEMO: '1',
      // The production CSP allows connections to the page's origin only, unless told the provider's.
      CSP_CONNECT_SRC: new URL(providerBaseURL).origin,
    };
  }
  return {
    LLM_BASE_URL: providerBaseURL,
    LLM_API_KEY: UPSTREAM_API_KEY,
    LLM_MODEL: E2E_MODEL,
    LLM_TIMEOUT_MS: String(SERVER_TIMEOUT_MS),
  };
}

/**
 * Runs the production server as `npm start` does (`node dist/server/main.js`, here the e2e build of it), configured
 * only through its environment, on a free port of 127.0.0.1.
 */
export async function startAppServer(mode: Mode, providerBaseURL: string): Promise<AppServer> {
  const output: string[] = [];
  const child = spawn(process.execPath, [serverEntry(mode)], {
    // Not the project folder: the server reads `.env` files from its working directory, and a developer's must not
    // change what is tested.
    cwd: dirname(serverEntry(mode)),
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      // The suite sends far more than a visitor would; the limiter has its own tests.
      RATE_LIMIT_PER_MINUTE: '0',
      ...modeEnv(mode, providerBaseURL),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const url = await new Promise<string>((resolve, reject) => {
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

  return {
    url,
    output,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
