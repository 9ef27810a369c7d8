// The production server (`npm start` runs the build of this file, dist/server/main.js): the built app from
// dist/client and the LLM proxy on one origin. Every setting comes from the environment; see .env.example.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILD_INFO_FILE, type BuildInfo } from '../contract/llm.ts';
import { createApp } from './app.ts';
import { listen } from './listen.ts';
import { serveMetrics } from './metrics.ts';
import { buildServerParts } from './server-parts.ts';
import {
  type DirectBuild,
  describeUpstream,
  loadAssistantConfig,
  loadDotEnvFiles,
  readServerEnv,
  settingNotices,
  startupFailure,
} from './settings/settings.ts';
import { startedLine, stoppedLine } from './startup-line.ts';

const clientDir = fileURLToPath(new URL('../client', import.meta.url));

/** A direct-mode client build needs no token on the server; older builds without the file are proxy builds. */
function readDirectBuild(): DirectBuild | undefined {
  const path = `${clientDir}/${BUILD_INFO_FILE}`;
  if (!existsSync(path)) return undefined;
  const info = JSON.parse(readFileSync(path, 'utf8')) as BuildInfo;
  return info.mode === 'direct' ? { providerOrigin: info.providerOrigin } : undefined;
}

async function main(): Promise<void> {
  loadDotEnvFiles(process.env, process.cwd());
  if (!existsSync(`${clientDir}/index.html`)) {
    throw new Error(`No built app in ${clientDir}: run \`npm run build\` first.`);
  }
  const directBuild = readDirectBuild();
  const config = readServerEnv(process.env, { directBuild });
  const assistant = loadAssistantConfig(process.env, process.cwd(), { direct: directBuild !== undefined });
  const log = (line: string) => console.log(line);
  // The site's pages load from the store in the background (synced first when the store lacks them): the server
  // answers at once, and `/readyz` says 503 until the pages are indexed.
  const parts = buildServerParts(config, { sources: assistant.knowledge, site: assistant, log });
  const { counters, metrics, traces, knowledge, feedback, handoff, actions } = parts;
  const app = createApp({
    ...config.proxy,
    assistant,
    knowledge,
    clientDir,
    counters,
    metrics,
    traces,
    feedback,
    handoff,
    actions,
    log,
  });
  const running = await listen(app, { port: config.port, host: config.host, limits: config.connections, log });
  const metricsServer =
    config.metrics && metrics ? await serveMetrics(metrics, config.metrics.port, config.metrics.host) : undefined;

  for (const notice of [...settingNotices(process.env), ...config.notices]) console.warn(`[server] ${notice}`);
  if (assistant.file) console.log(`[server] configuration from ${assistant.file}`);
  if (handoff) console.log(`[server] ${handoff.describe()}`);
  if (traces) console.log(`[server] ${traces.describe()} (OpenTelemetry, OTLP/HTTP)`);
  // Last: tests and scripts take this line as "ready".
  console.log(
    startedLine({
      url: running.url,
      allInterfaces: config.host === '0.0.0.0' || config.host === '::',
      basePath: config.proxy.basePath ?? '',
      upstream: describeUpstream(config.proxy.upstream),
      redisUrl: config.redisUrl,
      knowledgeSources: assistant.knowledge?.length ?? 0,
      databaseUrl: config.store.databaseUrl,
      dataDir: config.dataDir,
      metricsUrl: metricsServer && config.metrics && `http://${config.metrics.host}:${metricsServer.port}/metrics`,
    }),
  );

  // A rolling restart's SIGTERM: no new connections, but the replies under way (streams too) are finished, for as long
  // as one upstream exchange may take; then the process exits 0, so that the orchestrator sees a clean stop.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[server] ${signal}: finishing the replies in flight (up to ${config.proxy.timeoutMs} ms)`);
    metricsServer?.server.close();
    // No sync starts while the replies finish (the index in memory still answers them); the rest closes after.
    knowledge?.stop();
    void running
      .drain(config.proxy.timeoutMs)
      .then(async (cut) => {
        await parts.close();
        console.log(stoppedLine(signal, cut));
      })
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  // An EnvError lists every bad variable; nothing in these messages is a secret.
  console.error(startupFailure(error));
  process.exit(1);
});
