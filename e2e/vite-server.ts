import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type InlineConfig, type PreviewServer, preview, type ViteDevServer } from 'vite';
import { ROOT_DIR } from '../testing/production-app';
import { recordingLogger } from '../testing/vite-logger';
import { clientDir } from './e2e-env';

// `npm run dev` and `vite preview`, as those commands start them, for the browser tests of the modes they serve.

/**
 * The server a Vite command starts, with `env` in the environment while it reads its configuration (the
 * `ASSISTANT_CONFIG` of the command line, say), and a fresh dependency cache (a fresh clone's first run) unless
 * `extra.cacheDir` names one.
 */
export async function startVite(
  kind: 'dev' | 'preview',
  env: Record<string, string> = {},
  extra: InlineConfig = {},
): Promise<{ url: string; lines: string[]; close(): Promise<void> }> {
  const { logger, lines } = recordingLogger();
  const cacheDir = await mkdtemp(join(tmpdir(), 'vite-cache-'));
  const config: InlineConfig = {
    root: ROOT_DIR,
    cacheDir,
    customLogger: logger,
    clearScreen: false,
    server: { port: 0, host: '127.0.0.1', hmr: false },
    preview: { port: 0, host: '127.0.0.1' },
    build: { outDir: clientDir('proxy') },
    ...extra,
  };
  // The owner's counts go in the test's own folder, not the project's `data/`.
  const withData = { DATA_DIR: join(cacheDir, 'data'), ...env };
  const saved = Object.fromEntries(Object.keys(withData).map((name) => [name, process.env[name]]));
  Object.assign(process.env, withData);
  let server: ViteDevServer | PreviewServer;
  try {
    if (kind === 'dev') {
      const dev = await createServer({ ...config, mode: 'development' });
      await dev.listen();
      server = dev;
    } else {
      server = await preview(config);
    }
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  const address = server.httpServer?.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    lines,
    close: async () => {
      // Vite waits for the server's parts to close (the owner's counts written into `data/`) before this resolves.
      await server.close();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}
