import {
  type IndexBudget,
  type KnowledgeSnapshot,
  type KnowledgeStore,
  leftOutOfKeptIndex,
  sourceKey,
} from '../knowledge/knowledge.ts';
import { knowledgeSetup } from './cli-setup.ts';

/** The per-page line's words for a page the index's budget left out. */
const LEFT_OUT = 'left out of the index: it would take the index past its budget (KNOWLEDGE_INDEX_TEXT)';

/**
 * What the store holds, per source: the report's one shape, printed as text or, with `--json`, as JSON. A page's
 * `indexed` says whether the kept index holds it (`null`: the store keeps no index of these pages yet).
 */
export function knowledgeReport(
  snapshot: KnowledgeSnapshot,
  configured: string[],
  leftOut: ReadonlySet<string> | undefined,
) {
  const names = [...new Set([...configured, ...snapshot.sources.map((state) => state.source)])];
  return names.map((source) => {
    const state = snapshot.sources.find((entry) => entry.source === source);
    return {
      source,
      configured: configured.includes(source),
      state: state?.state ?? 'not synced yet',
      syncedAt: state ? new Date(state.syncedAt).toISOString() : null,
      lastSuccess: state?.succeededAt === undefined ? null : new Date(state.succeededAt).toISOString(),
      pages: snapshot.pages
        .filter((page) => page.source === source)
        .map((page) => ({
          url: page.url,
          title: page.title,
          passages: page.passages.length,
          fetchedAt: new Date(page.fetchedAt).toISOString(),
          changedAt: new Date(page.changedAt).toISOString(),
          indexed: leftOut && configured.includes(source) ? !leftOut.has(page.url) : null,
        })),
      notTaken: snapshot.skipped.filter((skip) => skip.source === source).map(({ url, reason }) => ({ url, reason })),
    };
  });
}

/** The report of what `store` holds for the `configured` sources, with what its kept index left out. */
export async function storeReport(store: KnowledgeStore, configured: string[], budget: IndexBudget) {
  const snapshot = await store.load();
  return knowledgeReport(snapshot, configured, await leftOutOfKeptIndex(store, snapshot, new Set(configured), budget));
}

/** The report as the command prints it without `--json`: per source, its state, then a line per page and per address. */
export function reportText(report: ReturnType<typeof knowledgeReport>): string {
  const lines: string[] = [];
  for (const source of report) {
    const note = source.configured ? '' : ' (no longer configured: the next sync removes it)';
    lines.push(`\n${source.source}: ${sourceState(source)}${note}`);
    const left = source.pages.filter((page) => page.indexed === false).length;
    const leftOut = left > 0 ? `, ${left} left out of the index by its budget` : '';
    lines.push(`  ${source.pages.length} pages, ${source.notTaken.length} addresses not taken${leftOut}`);
    for (const page of source.pages) {
      lines.push(
        `  ${page.url}  "${page.title}"  ${page.passages} passages, fetched ${page.fetchedAt}, changed ${page.changedAt}` +
          (page.indexed === false ? `, ${LEFT_OUT}` : ''),
      );
    }
    for (const skip of source.notTaken) lines.push(`  not taken: ${skip.url}: ${skip.reason}`);
  }
  return lines.join('\n');
}

/** A source's state in words: when it was synced, or when its last attempt failed and when it last succeeded. */
function sourceState({ state, syncedAt, lastSuccess }: ReturnType<typeof knowledgeReport>[number]): string {
  if (syncedAt === null) return state;
  if (!state.startsWith('failed: ')) return `${state}, synced ${syncedAt}`;
  return `last attempt ${syncedAt} failed: ${state.slice('failed: '.length)}; last success ${lastSuccess ?? 'never'}`;
}

/** `npm run knowledge -- report [--json]`: every page the store holds and every address it did not take, and why. */
export async function reportCommand(args: string[]): Promise<number> {
  const setup = knowledgeSetup((line) => console.error(line));
  if (!setup) return 1;
  try {
    const report = await storeReport(setup.store, setup.sources.map(sourceKey), setup.indexBudget);
    if (args.includes('--json')) {
      console.log(JSON.stringify({ store: setup.store.home, sources: report }, null, 2));
      return 0;
    }
    console.log(`Knowledge in ${setup.store.home}`);
    console.log(reportText(report));
    return 0;
  } catch (error) {
    console.error(`[knowledge] ${setup.store.home}: ${(error as Error).message}`);
    return 1;
  } finally {
    await setup.store.close();
  }
}
