// What `vite build` adds to the client's output: its mode, a direct-mode build's pages filled, `.br`/`.gz` copies.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedConfig } from 'vite';
import { BUILD_INFO_FILE, type BuildInfo, DEFAULT_BASE_URL } from '../../contract/llm.ts';
import { LANGUAGES, pageFileName } from '../../locales/languages.ts';
import { fillPages, precompressDir, readPageTemplates } from '../pages/pages.ts';
import type { AssistantConfig } from '../settings/settings.ts';

/** The token is in `VITE_LLM_API_KEY`, i.e. in the bundle: the spec's direct mode. */
export function directModeBaseURL(config: ResolvedConfig): string | undefined {
  if (!config.env.VITE_LLM_API_KEY?.trim()) return undefined;
  return config.env.VITE_LLM_BASE_URL?.trim() || DEFAULT_BASE_URL;
}

/** Records the build's mode (`BUILD_INFO_FILE`), bakes the site's settings into a direct-mode build's pages, compresses. */
export async function finishClientBuild(
  dir: string,
  config: ResolvedConfig,
  assistant: AssistantConfig,
): Promise<void> {
  const direct = directModeBaseURL(config);
  const info: BuildInfo = direct ? { mode: 'direct', providerOrigin: new URL(direct).origin } : { mode: 'proxy' };
  await writeFile(join(dir, BUILD_INFO_FILE), `${JSON.stringify(info)}\n`);
  if (direct) {
    // No server fills a direct-mode page (a static host serves it as written): the site's settings go in now.
    const pages = fillPages(readPageTemplates(dir), assistant);
    await Promise.all(LANGUAGES.map((language) => writeFile(join(dir, pageFileName(language)), pages[language])));
  }
  const count = await precompressDir(dir);
  config.logger.info(`[llm-server] wrote ${count} precompressed (.br/.gz) files in ${dir}`);
}
