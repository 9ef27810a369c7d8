import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { E2E_MODEL, PROXY_SERVER_ENTRY, SERVER_TIMEOUT_MS, UPSTREAM_API_KEY } from './e2e-env';

export interface ProxyServer {
  url: string;
  /** Everything the server printed, line by line. */
  output: string[];
  close(): Promise<void>;
}

const STARTED = /AI Assistant on (http:\/\/\S+?):? /;

/**
 * Runs the production server exactly as `npm start` does (`node dist/server/main.js`, here the e2e build of it),
 * configured only through its environment and pointed at the fake provider.
 */
export async function startProxyServer(providerBaseURL: string): Promise<ProxyServer> {
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [PROXY_SERVER_ENTRY], {
    // Not the project folder: the server reads `.env` files from its working directory, and a developer's must not
    // change what is tested.
    cwd: dirname(PROXY_SERVER_ENTRY),
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      LLM_BASE_URL: providerBaseURL,
      LLM_API_KEY: UPSTREAM_API_KEY,
      LLM_MODEL: E2E_MODEL,
      LLM_TIMEOUT_MS: String(SERVER_TIMEOUT_MS),
      // The suite sends far more than a visitor would; the limiter has its own tests.
      RATE_LIMIT_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const url = await new Promise<string>((resolve, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        output.push(line);
        const started = STARTED.exec(line);
        if (started) resolve(started[1]);
      }
    };
    child.stdout?.on('data', onLine);
    child.stderr?.on('data', onLine);
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
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
