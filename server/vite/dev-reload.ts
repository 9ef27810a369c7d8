// `npm run dev` follows the site's own files, as it follows the code: a saved configuration file restarts the dev
// server on it, and a changed file of a folder source is synced into the store at once. No restart by hand.
import { sep } from 'node:path';
import type { ViteDevServer } from 'vite';
import type { Knowledge } from '../knowledge/knowledge.ts';
import { startupFailure } from '../settings/settings.ts';

/** Editors save in several writes; one reaction follows the last of them. */
const SETTLE_MS = 150;

export interface SiteFiles {
  /** The configuration file (`ASSISTANT_CONFIG`, or assistant.config.yaml), which may not exist yet. */
  configFile: string;
  /** Reads the saved configuration and throws what is wrong with it, as start-up would. */
  checkConfig: () => void;
  /** The folder sources' paths, and the library that reads them. */
  folders: string[];
  knowledge?: Knowledge;
  log: (line: string) => void;
}

/**
 * Watches the configuration file and the folder sources with Vite's own watcher. A configuration with a mistake is
 * said in the log, and the server keeps the last good one (the library is closed with the server's parts).
 */
export function followSiteFiles(server: ViteDevServer, files: SiteFiles): void {
  const { configFile, folders, knowledge, log } = files;
  const timers = new Map<string, NodeJS.Timeout>();
  const settle = (what: string, then: () => void) => {
    clearTimeout(timers.get(what));
    timers.set(what, setTimeout(then, SETTLE_MS));
  };
  const restart = () => {
    try {
      files.checkConfig();
    } catch (error) {
      log(`${startupFailure(error)} (the server keeps the configuration it has; save the file again to retry)`);
      return;
    }
    log(`[server] ${configFile} changed: restarting on it`);
    void server.restart();
  };
  const changed = (path: string) => {
    if (path === configFile) settle('config', restart);
    else if (knowledge && folders.some((folder) => path.startsWith(folder + sep))) {
      settle('folders', () => void knowledge.refresh());
    }
  };
  server.watcher.add([configFile, ...folders]);
  server.watcher.on('add', changed).on('change', changed).on('unlink', changed);
  server.httpServer?.once('close', () => {
    for (const timer of timers.values()) clearTimeout(timer);
    server.watcher.off('add', changed).off('change', changed).off('unlink', changed);
  });
}
