import { resolve } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { type Connect, loadEnv, type ResolvedConfig } from 'vite';
import { bundleLoader } from '../../build/embed-loader.ts';
import { EMBED_HOST_PARAM, EMBED_LOADER_PATH } from '../../contract/embed.ts';
import { PROXY_BASE_PATH } from '../../contract/llm.ts';
import { OWNER_PAGE_FILE, OWNER_PAGE_PATH } from '../../contract/owner.ts';
import { createApp, ownerPageServed } from '../app.ts';
import type { Knowledge } from '../knowledge/knowledge.ts';
import {
  frameHeaders,
  headersForPath,
  localizeLoader,
  pageLanguage,
  refusedFrameNotice,
  securityHeaders,
} from '../pages/pages.ts';
import { buildServerParts } from '../server-parts.ts';
import {
  type AssistantConfig,
  describeUpstream,
  exitOnConfigError,
  OUTSIDE_BASE_PATH,
  pathUnder,
  readServerEnv,
} from '../settings/settings.ts';
import { directModeBaseURL } from './vite-build.ts';
import { isPagePath, isServerPath } from './vite-paths.ts';

// The dev and preview servers' proxy: the production server's handler and parts, mounted on Vite's middlewares.

/**
 * Mounts the production server's handler (`createApp`) on a Vite server. The `LLM_*` variables come from the
 * `.env` files and the environment via `loadEnv(mode, envDir, '')`; without `LLM_API_KEY` the demo responder
 * answers, and the log says so.
 *
 * @param applyToPages also send the security headers with every page and file, and serve the page filled with the
 *   site's settings from the build (preview, which serves the build as production does). The dev server's pages get
 *   only the frame policy (Vite's HMR client and React refresh preamble need inline scripts and a websocket that the
 *   rest of the production CSP rightly forbids); its page is filled by `transformIndexHtml`.
 */
export function mountProxy(
  { middlewares }: { middlewares: Connect.Server },
  config: ResolvedConfig,
  assistant: AssistantConfig,
  applyToPages: boolean,
): { knowledge?: Knowledge; close: () => Promise<void> } {
  const env = loadEnv(config.mode, config.envDir, '');
  const settings = serverEnvOrExit(env);
  const { proxy, notices } = settings;
  const direct = directModeBaseURL(config);
  // A direct-mode page calls its provider itself, so the CSP must let it.
  if (direct) proxy.security.connectSrc = [...proxy.security.connectSrc, new URL(direct).origin];

  const log = (line: string) => config.logger.info(line, { timestamp: true });
  // The same parts as `npm start` (REDIS_URL counts the limits and the owner's counts in Redis), but no metrics: the
  // site's pages are read in the background, and `/readyz` says when they are indexed.
  const parts = buildServerParts(
    { ...settings, metrics: undefined },
    { sources: assistant.knowledge, site: assistant, log },
  );
  const { counters, knowledge, feedback, handoff, actions } = parts;
  const options = {
    ...proxy,
    assistant,
    knowledge,
    clientDir: applyToPages ? resolve(config.root, config.build.outDir) : undefined,
    counters,
    feedback,
    handoff,
    actions,
    log,
  };
  const app = createApp(options);
  // The dev server's owner page is Vite's owner.html, at OWNER_PAGE_PATH only and only with a token set, as
  // `npm start` serves it: otherwise the app answers (its 404).
  const devOwnerPage = (path: string) =>
    path.startsWith(OWNER_PAGE_FILE) || (path === OWNER_PAGE_PATH && !ownerPageServed(options));
  // Hono's lightweight Request/Response must not replace the globals of the process Vite (and Vitest) runs in.
  const listener = getRequestListener(app.fetch, { overrideGlobalObjects: false });
  const headers = securityHeaders(proxy.security);
  // The dev server's page still gets the production's frame policy, and its refused hosts are logged as there (the
  // preview's pages go through the app, which does both).
  const devFrameHeaders = frameHeaders(proxy.security.frameAncestors);
  const noteFrameHost = refusedFrameNotice(proxy.security.frameAncestors, log);

  const inside = pathUnder(proxy.basePath ?? '');
  middlewares.use((req, res, next) => {
    // The path under BASE_PATH; outside it, the app's 404, as `npm start` answers.
    const path = inside ? inside(new Request(new URL(req.url ?? '/', 'http://vite'))) : (req.url ?? '').split('?')[0];
    const loader = path === EMBED_LOADER_PATH;
    // Preview serves the built loader through the app, and dev bundles it per request: both with the site's title,
    // accent and language, as `npm start` does.
    const toApp = applyToPages ? isPagePath(path) || loader : devOwnerPage(path);
    if (path === OUTSIDE_BASE_PATH || isServerPath(path) || toApp) {
      void listener(req, res);
      return;
    }
    if (loader) {
      const language = pageLanguage({ configured: assistant.language, acceptLanguage: req.headers['accept-language'] });
      bundleLoader().then((code) => {
        res.setHeader('Content-Type', 'text/javascript');
        res.end(localizeLoader(code, language, assistant));
      }, next);
      return;
    }
    if (applyToPages) {
      for (const [name, value] of Object.entries(headersForPath(headers, path))) res.setHeader(name, value);
    } else {
      for (const [name, value] of Object.entries(headersForPath(devFrameHeaders, path))) res.setHeader(name, value);
      noteFrameHost(new URL(req.url ?? '/', 'http://dev').searchParams.get(EMBED_HOST_PARAM), req.headers.host);
    }
    next();
  });

  sayHowItAnswers(config, notices, direct ?? describeUpstream(proxy.upstream), Boolean(direct));
  return { knowledge, close: parts.close };
}

/** The server's settings from Vite's environment (the demo answers without a token), or the process ends saying why. */
function serverEnvOrExit(env: Record<string, string>): ReturnType<typeof readServerEnv> {
  try {
    return readServerEnv(env, { demoFallback: true });
  } catch (error) {
    exitOnConfigError(error);
  }
}

/** The start's lines: the settings' notices, then who answers chat (the provider the page calls, or the proxy's). */
function sayHowItAnswers(config: ResolvedConfig, notices: string[], answers: string, direct: boolean): void {
  for (const notice of notices) config.logger.warn(`  [llm-proxy] ${notice}`);
  if (direct) {
    config.logger.warn(
      `  [llm-proxy] Direct mode: the page calls ${answers} itself, with the token from VITE_LLM_API_KEY.`,
    );
  } else {
    config.logger.info(`  [llm-proxy] ${PROXY_BASE_PATH}: ${answers}`);
  }
}
