import { CRAWL_DEFAULTS, progressLines, syncOnce } from '../knowledge/knowledge.ts';
import { knowledgeSetup } from './cli-setup.ts';

/** A terminal shows progress more often than the server's log. */
const PROGRESS_MS = 2000;

/**
 * `npm run knowledge -- sync`: one sync of every configured source now, with the server's own code, into the
 * configured store; a deploy can run it before the servers start. Exits 0, or 1 with one line when a source failed
 * (naming each), the store or the configuration is wrong, or another process is syncing the same store.
 */
export async function syncCommand(): Promise<number> {
  const log = (line: string) => console.log(line);
  const setup = knowledgeSetup(log);
  if (!setup) return 1;
  const { store, sources, indexBudget } = setup;
  try {
    if (sources.length === 0) {
      console.error('[knowledge] the site has no `knowledge:` sources to sync (see assistant.config.yaml)');
      return 1;
    }
    log(`[knowledge] syncing ${sources.length} sources into ${store.home}`);
    const outcome = await syncOnce(store, sources, {
      ...CRAWL_DEFAULTS,
      ...indexBudget,
      language: 'en',
      log,
      progress: progressLines(log, PROGRESS_MS),
    });
    if (!outcome.ran) {
      console.error(`[knowledge] another process is syncing ${store.home} now: try again when it is done`);
      return 1;
    }
    // A deploy that syncs before the servers start must be able to tell that a source was not read.
    const failed = outcome.result?.failed ?? [];
    if (failed.length === 0) return 0;
    const which = failed.map(({ source, reason }) => `${source} (${reason})`).join('; ');
    console.error(`[knowledge] ${failed.length} of ${sources.length} sources failed: ${which}`);
    return 1;
  } catch (error) {
    console.error(`[knowledge] ${store.home}: ${(error as Error).message}`);
    return 1;
  } finally {
    await store.close();
  }
}
