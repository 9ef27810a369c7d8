import type { Rolldown } from 'vite';

/** The start-up stage that src/start.ts evaluates last: the app, with the chat machine and XState. */
export const APP_STAGE_NAME = 'main';

/**
 * A `codeSplitting` group that keeps in the app's chunk every module that its stage (`stage`, src/main.tsx) imports
 * statically, when no group before it takes the module (React DOM and Chakra have their own).
 *
 * Left to itself, the bundler puts each module that the app shares with one of its lazy chunks (the machine and XState,
 * which the openai chunk's actor needs; the recipe controls and the actor context, which the status and embed chunks
 * use) in a chunk of its own: three more start-up chunks, each compressed apart (about 900 B of gzip more), although
 * a lazy chunk is only ever asked for by the app, whose chunk is then loaded. Here they stay in the app's chunk, and
 * the lazy chunks import them from it.
 *
 * What the page's entry (`entry`, src/start.ts) imports statically stays out, Vite's import helper among them: in the
 * app's chunk it would make the entry import that chunk statically, evaluating the app in the entry's task. (The
 * bundler's CommonJS interop helpers it places itself, in a small chunk that the entry imports.) Dependencies are not
 * followed (`includeDependenciesRecursively`): the stage's static graph is the whole set already.
 */
export function appChunkGroup({ entry, stage }: { entry: string; stage: string }): Rolldown.CodeSplittingGroup {
  // Per bundling pass (one process may build several times): keyed by the stage's module info, which a pass reuses.
  const passes = new WeakMap<object, Set<string>>();
  return {
    name: (id, ctx) => {
      const root = ctx.getModuleInfo(stage);
      if (!root) return null;
      let modules = passes.get(root);
      if (!modules) {
        const importedIds = (moduleId: string) => ctx.getModuleInfo(moduleId)?.importedIds ?? [];
        const entryModules = staticGraph(entry, importedIds);
        modules = new Set([...staticGraph(stage, importedIds)].filter((moduleId) => !entryModules.has(moduleId)));
        passes.set(root, modules);
      }
      return modules.has(id) ? APP_STAGE_NAME : null;
    },
    includeDependenciesRecursively: false,
    // The name is a function: the bundler asks for a label of its own, for its timing report, and says so otherwise.
    debugName: APP_STAGE_NAME,
  };
}

/** `entry` and every module it imports statically, directly or not. */
export function staticGraph(entry: string, importedIds: (id: string) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    pending.push(...importedIds(id));
  }
  return seen;
}
