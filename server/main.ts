// The production server (`npm start` runs the build of this file, dist/server/main.js): the built app from
// dist/client and the LLM proxy on one origin. Every setting comes from the environment; see .env.example.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describeUpstream, loadDotEnvFiles, readServerEnv } from './env.ts';
import { listen } from './listen.ts';
import { createProxyApp } from './proxy.ts';

const clientDir = fileURLToPath(new URL('../client', import.meta.url));

async function main(): Promise<void> {
  loadDotEnvFiles(process.env, process.cwd());
  const config = readServerEnv(process.env);
  if (!existsSync(`${clientDir}/index.html`)) {
    throw new Error(`No built app in ${clientDir}: run \`npm run build\` first.`);
  }
  const app = createProxyApp({ ...config.proxy, clientDir });
  const running = await listen(app, { port: config.port, host: config.host });

  for (const notice of config.notices) console.warn(`[server] ${notice}`);
  const bound = config.host === '0.0.0.0' || config.host === '::' ? ' (all interfaces)' : '';
  console.log(`[server] AI Assistant on ${running.url}${bound}: ${describeUpstream(config.proxy.upstream)}`);

  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  // An EnvError lists every bad variable; nothing in these messages is a secret.
  console.error(`[server] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
