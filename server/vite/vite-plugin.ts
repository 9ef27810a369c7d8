import { loadEnv, type Plugin, type ResolvedConfig } from 'vite';
import { localizePage } from '../../build/prerender-card.ts';
import { EMBED_LANG_PARAM } from '../../contract/embed.ts';
import { OWNER_PAGE_FILE } from '../../contract/owner.ts';
import { CATALOGUES } from '../../locales/catalogues.ts';
import { pickLanguage } from '../../locales/languages.ts';
import { fillPageHtml } from '../pages/pages.ts';
import {
  type AssistantConfig,
  assistantConfigFile,
  EnvError,
  exitOnConfigError,
  loadAssistantConfig,
  readBasePath,
  settingNotices,
} from '../settings/settings.ts';
import { followSiteFiles } from './dev-reload.ts';
import { mountProxy } from './mount-proxy.ts';
import { directModeBaseURL, finishClientBuild } from './vite-build.ts';

export const DIRECT_MODE_WARNING =
  'Direct mode: VITE_LLM_API_KEY is set, so the provider token is embedded in the JavaScript bundle, where every ' +
  "visitor can read it and spend the account's quota on anything. To keep it secret, unset VITE_LLM_API_KEY " +
  '(proxy mode, the default) and give the token to the server as LLM_API_KEY.';

const loadSiteConfig = (config: ResolvedConfig) =>
  loadAssistantConfig(loadEnv(config.mode, config.envDir, ''), config.root, {
    direct: directModeBaseURL(config) !== undefined,
  });

/**
 * The site's configuration (`ASSISTANT_CONFIG`, or assistant.config.yaml in the project folder), checked: a problem stops the command. A
 * direct-mode page may not carry `instructions` or `history`.
 */
function readAssistantConfig(config: ResolvedConfig): AssistantConfig {
  try {
    return loadSiteConfig(config);
  } catch (error) {
    exitOnConfigError(error);
  }
}

/**
 * The server side of the app in Vite:
 * - dev (`npm run dev`) and preview (`vite preview`) answer `PROXY_BASE_PATH` with the same handler as `npm start`;
 * - a client build warns when it embeds the token (direct mode), records its mode (`BUILD_INFO_FILE`), bakes the
 *   site's settings into a direct-mode build's pages and writes `.br`/`.gz` copies of its text files.
 */
export function llmServer(): Plugin[] {
  let config: ResolvedConfig;
  let assistant: AssistantConfig;
  /** Closes the parts the dev or preview server mounted (the store, the owner's counts written): once. */
  let closeParts: (() => Promise<void>) | undefined;
  return [
    {
      name: 'llm-server:proxy',
      config(userConfig, { isSsrBuild, mode }) {
        // The server bundle (dist/server) needs none of the browser's public files.
        if (isSsrBuild) return { build: { copyPublicDir: false } };
        // The page and its assets under BASE_PATH, in every command; the server reads the same variable.
        const problems: string[] = [];
        const basePath = readBasePath(
          loadEnv(mode, userConfig.envDir || userConfig.root || process.cwd(), ''),
          problems,
        );
        if (problems.length > 0) exitOnConfigError(new EnvError(problems));
        return { base: `${basePath}/` };
      },
      configResolved(resolved) {
        config = resolved;
        // Every command checks the configuration, the build too: a direct-mode build refuses what its page would carry.
        if (resolved.mode !== 'test') assistant = readAssistantConfig(resolved);
        // Once per command: a build's second pass (the server bundle) has nothing new to say.
        if (resolved.mode !== 'test' && !resolved.build.ssr) {
          for (const notice of settingNotices(loadEnv(resolved.mode, resolved.envDir, ''))) {
            resolved.logger.warn(`  [llm-proxy] ${notice}`);
          }
        }
        if (resolved.command === 'build' && !resolved.build.ssr && directModeBaseURL(resolved)) {
          resolved.logger.warn(`\n⚠  ${DIRECT_MODE_WARNING}\n`);
        }
      },
      configureServer(server) {
        // Vitest runs its own Vite server (mode `test`) for the unit tests, which need no proxy and no start-up notes.
        if (server.config.mode === 'test') return;
        const { knowledge, close } = mountProxy(server, server.config, assistant, false);
        closeParts = close;
        followSiteFiles(server, {
          configFile: assistantConfigFile(loadEnv(config.mode, config.envDir, ''), config.root),
          checkConfig: () => loadSiteConfig(config),
          folders: (assistant.knowledge ?? []).flatMap((source) => ('path' in source ? [source.path] : [])),
          knowledge,
          log: (line) => config.logger.info(line, { timestamp: true }),
        });
      },
      configurePreviewServer(server) {
        closeParts = mountProxy(server, server.config, assistant, true).close;
      },
      // Vite waits for these as its server closes (on `close()`, and on SIGTERM before the process ends): the dev
      // server's environments end with `buildEnd`, the preview server with `closePreviewServer`. The parts are closed
      // there, so that the owner's counts are written before the server says it is closed.
      async buildEnd() {
        await closeParts?.();
      },
      async closePreviewServer() {
        await closeParts?.();
      },
      transformIndexHtml(html, context) {
        // The dev server's page, in the language its `?lang=` or the site asks for (Vite's hook sees no request
        // headers, so not the browser's); a build's pages are finished by build/prerender-card.ts.
        // The owner's page is English only, with nothing to fill.
        if (config.command !== 'serve' || config.mode === 'test' || context.path === OWNER_PAGE_FILE) return;
        const asked = new URL(context.originalUrl ?? context.path, 'http://localhost').searchParams.get(
          EMBED_LANG_PARAM,
        );
        const language = pickLanguage([asked, assistant.language]);
        return fillPageHtml(localizePage(html, language), assistant, CATALOGUES[language].title);
      },
    },
    {
      name: 'llm-server:precompress',
      apply: 'build',
      writeBundle: {
        order: 'post',
        sequential: true,
        async handler(output) {
          if (!config.build.ssr && output.dir) await finishClientBuild(output.dir, config, assistant);
        },
      },
    },
  ];
}
