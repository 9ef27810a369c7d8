import { sourceKey } from '../knowledge/knowledge.ts';
import type { KnowledgeSnapshot } from '../knowledge-store/knowledge-store.ts';
import { knowledgeSetup } from './cli-setup.ts';

/** What the store holds, per source: the report's one shape, printed as text or, with `--json`, as JSON. */
export function knowledgeReport(snapshot: KnowledgeSnapshot, configured: string[]) {
  const names = [...new Set([...configured, ...snapshot.sources.map((state) => state.source)])];
  return names.map((source) => {
    const state = snapshot.sources.find((entry) => entry.source === source);
    return {
      source,
      configured: configured.includes(source),
      state: state?.state ?? 'not synced yet',
      syncedAt: state ? new Date(state.syncedAt).toISOString() : null,
      pages: snapshot.pages
        .filter((page) => page.source === source)
        .map((page) => ({
          url: page.url,
          title: page.title,
          passages: page.passages.length,
          fetchedAt: new Date(page.fetchedAt).toISOString(),
          changedAt: new Date(page.changedAt).toISOString(),
        })),
      notTaken: snapshot.skipped.filter((skip) => skip.source === source).map(({ url, reason }) => ({ url, reason })),
    };
  });
}

/** `npm run knowledge -- report [--json]`: every page the store holds and every address it did not take, and why. */
export async function reportCommand(args: string[]): Promise<number> {
  const setup = knowledgeSetup((line) => console.error(line));
  if (!setup) return 1;
  try {
    const snapshot = await setup.store.load();
    const report = knowledgeReport(snapshot, setup.sources.map(sourceKey));
    if (args.includes('--json')) {
      console.log(JSON.stringify({ store: setup.store.home, sources: report }, null, 2));
      return 0;
    }
    console.log(`Knowledge in ${setup.store.home}`);
    for (const source of report) {
      const note = source.configured ? '' : ' (no longer configured: the next sync removes it)';
      console.log(`\n${source.source}: ${source.state}, synced ${source.syncedAt ?? 'never'}${note}`);
      console.log(`  ${source.pages.length} pages, ${source.notTaken.length} addresses not taken`);
      for (const page of source.pages) {
        console.log(
          `  ${page.url}  "${page.title}"  ${page.passages} passages, fetched ${page.fetchedAt}, changed ${page.changedAt}`,
        );
      }
      for (const skip of source.notTaken) console.log(`  not taken: ${skip.url}: ${skip.reason}`);
    }
    return 0;
  } catch (error) {
    console.error(`[knowledge] ${setup.store.home}: ${(error as Error).message}`);
    return 1;
  } finally {
    await setup.store.close();
  }
}
