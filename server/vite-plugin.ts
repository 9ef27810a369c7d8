import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { type Connect, loadEnv, type Plugin, type ResolvedConfig } from 'vite';
import { BUILD_INFO_FILE, type BuildInfo, DEFAULT_BASE_URL, PROXY_BASE_PATH } from '../contract/llm.ts';
import { createApp } from './app.ts';
import { readServerEnv } from './env.ts';
import { describeUpstream } from './env-upstream.ts';
import { precompressDir } from './precompress.ts';
import { headersForPath, securityHeaders } from './security-headers.ts';

/** The token is in `VITE_LLM_API_KEY`, i.e. in the bundle: the spec's direct mode. */
function directModeBaseURL(config: ResolvedConfig): string | undefined {
  if (!config.env.VITE_LLM_API_KEY?.trim()) return undefined;
  return config.env.VITE_LLM_BASE_URL?.trim() || DEFAULT_BASE_URL;
}

export const DIRECT_MODE_WARNING =
  'Direct mode: VITE_LLM_API_KEY is set, so the provider token is embedded in the JavaScript bundle, where every ' +
  "visitor can read it and spend the account's quota on anything. To keep it secret, unset VITE_LLM_API_KEY " +
  '(proxy mode, the default) and give the token to the server as LLM_API_KEY.';

function isProxyPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0];
  return path === PROXY_BASE_PATH || path.startsWith(`${PROXY_BASE_PATH}/`);
}

/**
 * Mounts the production server's handler (`createApp`) on a Vite server. The `LLM_*` variables come from the
 * `.env` files and the environment via `loadEnv(mode, envDir, '')`; without `LLM_API_KEY` the demo responder
 * answers, and the log says so.
 *
 * @param applyToPages also send the security headers with every page and file (preview, which serves the build as
 *   production does). The dev server's pages go without them: Vite's HMR client and React refresh preamble need inline
 *   scripts and a websocket that the production CSP rightly forbids.
 */
function mountProxy(middlewares: Connect.Server, config: ResolvedConfig, applyToPages: boolean): void {
  const env = loadEnv(config.mode, config.envDir, '');
  const { proxy, notices } = readServerEnv(env, { demoFallback: true });
  const direct = directModeBaseURL(config);
  // A direct-mode page calls its provider itself, so the CSP must let it.
  if (direct) proxy.security.connectSrc = [...proxy.security.connectSrc, new URL(direct).origin];

  const app = createApp({ ...proxy, log: (line) => config.logger.info(line, { timestamp: true }) });
  // Hono's lightweight Request/Response must not replace the globals of the process Vite (and Vitest) runs in.
  const listener = getRequestListener(app.fetch, { overrideGlobalObjects: false });
  const headers = securityHeaders(proxy.security);

  middlewares.use((req, res, next) => {
    if (isProxyPath(req.url)) {
      void listener(req, res);
      return;
    }
    if (applyToPages) {
      const path = (req.url ?? '').split('?')[0];
      for (const [name, value] of Object.entries(headersForPath(headers, path))) res.setHeader(name, value);
    }
    next();
  });

  for (const notice of notices) config.logger.warn(`  [llm-proxy] ${notice}`);
  if (direct) {
    config.logger.warn(
      `  [llm-proxy] Direct mode: the page calls ${direct} itself, with the token from VITE_LLM_API_KEY.`,
    );
  } else {
    config.logger.info(`  [llm-proxy] ${PROXY_BASE_PATH}: ${describeUpstream(proxy.upstream)}`);
  }
}

/**
 * The server side of the app in Vite:
 * - dev (`npm run dev`) and preview (`vite preview`) answer `PROXY_BASE_PATH` with the same handler as `npm start`;
 * - a client build warns when it embeds the token (direct mode), records its mode (`BUILD_INFO_FILE`) and writes
 *   `.br`/`.gz` copies of its text files for the production server.
 */
export function llmServer(): Plugin[] {
  let config: ResolvedConfig;
  return [
    {
      name: 'llm-server:proxy',
      config(_config, { isSsrBuild }) {
        // The server bundle (dist/server) needs none of the browser's public files.
        if (isSsrBuild) return { build: { copyPublicDir: false } };
      },
      configResolved(resolved) {
        config = resolved;
        if (resolved.command === 'build' && !resolved.build.ssr && directModeBaseURL(resolved)) {
          resolved.logger.warn(`\n⚠  ${DIRECT_MODE_WARNING}\n`);
        }
      },
      configureServer(server) {
        // Vitest runs its own Vite server (mode `test`) for the unit tests, which need no proxy and no start-up notes.
        if (server.config.mode === 'test') return;
        mountProxy(server.middlewares, server.config, false);
      },
      configurePreviewServer(server) {
        mountProxy(server.middlewares, server.config, true);
      },
    },
    {
      name: 'llm-server:precompress',
      apply: 'build',
      writeBundle: {
        order: 'post',
        sequential: true,
        async handler(output) {
          if (config.build.ssr || !output.dir) return;
          const direct = directModeBaseURL(config);
          const info: BuildInfo = direct
            ? { mode: 'direct', providerOrigin: new URL(direct).origin }
            : { mode: 'proxy' };
          await writeFile(join(output.dir, BUILD_INFO_FILE), `${JSON.stringify(info)}\n`);
          const count = await precompressDir(output.dir);
          config.logger.info(`[llm-server] wrote ${count} precompressed (.br/.gz) files in ${output.dir}`);
        },
      },
    },
  ];
}
