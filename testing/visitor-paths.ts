import type { AnyStateMachine, EventObject, MachineSnapshot } from 'xstate';
import { adjacencyMapToArray, type StatePath, type TestModel, type TestPath } from 'xstate/graph';
import type { VisitorEvent, VisitorPath, VisitorState } from '../machines/visitor-model';

// The paths the model-based tests run (in jsdom and in Chromium), the coverage they prove, and the payloads each run
// uses. The model itself is machines/visitor-model.ts; the paths and the coverage serve any flat model (the
// confirmation's, machines/confirm-model.ts, too).

/** A flat model's snapshot: its value is the state's name. */
// biome-ignore lint/suspicious/noExplicitAny: any flat machine's snapshot, whatever its context and events.
type ModelSnapshot = MachineSnapshot<any, any, any, any, any, any, any, any>;

function stateOf<TState extends string = VisitorState>(snapshot: ModelSnapshot): TState {
  return snapshot.value as TState;
}

function transitionKey(source: string, eventType: string, target: string): string {
  return `${source} --${eventType}--> ${target}`;
}

function eventsOf<TEvent extends EventObject>(path: StatePath<ModelSnapshot, TEvent>): TEvent[] {
  // Generated paths start with a step for `xstate.init` (typed as a visitor's event, but not one).
  return path.steps.slice(1).map((step) => step.event);
}

function isPrefix(short: readonly EventObject[], long: readonly EventObject[]): boolean {
  return short.length <= long.length && short.every((event, index) => event.type === long[index].type);
}

/**
 * The paths to run: together they visit every state and take every transition of the model, self-loops included.
 *
 * Shortest paths alone reach every state but skip the transitions that lead back to states already reached (such
 * as submitting a blank box). So this takes, for each state, its shortest path and, for each transition the model
 * can take (found by exploring it, not by reading its configuration), the shortest path to its source followed by
 * its event; then it drops every path that is the beginning of another one, since running the longer one checks
 * each state along the way anyway.
 */
export function getVisitorPaths<TSnapshot extends ModelSnapshot, TEvent extends EventObject>(
  model: TestModel<TSnapshot, TEvent, unknown>,
): TestPath<TSnapshot, TEvent>[] {
  const shortest = new Map<string, TEvent[]>();
  for (const path of model.getShortestPaths({ allowDuplicatePaths: true })) {
    const state = stateOf(path.state);
    const events = eventsOf(path);
    const known = shortest.get(state);
    if (!known || events.length < known.length) shortest.set(state, events);
  }

  const sequences: TEvent[][] = [...shortest.values()];
  const taken = new Set<string>();
  for (const { state, event, nextState } of adjacencyMapToArray(model.getAdjacencyMap())) {
    const key = transitionKey(stateOf(state), event.type, stateOf(nextState));
    const toSource = shortest.get(stateOf(state));
    if (taken.has(key) || !toSource) continue;
    taken.add(key);
    sequences.push([...toSource, event]);
  }

  const longestFirst = sequences.sort((a, b) => b.length - a.length);
  const kept: TEvent[][] = [];
  for (const sequence of longestFirst) {
    if (!kept.some((longer) => isPrefix(sequence, longer))) kept.push(sequence);
  }
  return kept.reverse().flatMap((events) => model.getPathsFromEvents(events));
}

/**
 * The fewest of `paths` that still reach every state and take every kind of event (before and after a piece of a
 * reply): the browser's share. Every transition is the unit model's to walk (src/app.test.tsx runs every path, in
 * jsdom, with the same model); the browser proves the real client, network, rendering and keyboard on each state and
 * each event, without running each transition again at a page load apiece. Greedy: the path that adds the most first.
 */
export function browserPaths(paths: readonly VisitorPath[]): VisitorPath[] {
  const keysOf = (path: VisitorPath) =>
    pathEvents(path).flatMap(({ type, target, afterPiece }) => [
      `state ${target}`,
      `${type} after piece: ${afterPiece}`,
    ]);
  const covered = new Set<string>();
  const chosen = new Set<VisitorPath>();
  for (;;) {
    const gain = (path: VisitorPath) => new Set(keysOf(path).filter((key) => !covered.has(key))).size;
    const best = paths.filter((path) => !chosen.has(path)).sort((a, b) => gain(b) - gain(a))[0];
    if (!best || gain(best) === 0) break;
    chosen.add(best);
    for (const key of keysOf(best)) covered.add(key);
  }
  return paths.filter((path) => chosen.has(path));
}

/** The kinds of event a set of paths takes, before and after a piece of a reply arrived (as `browserPaths` counts). */
export function eventKinds(paths: readonly VisitorPath[]): string[] {
  const kinds = paths.flatMap((path) =>
    pathEvents(path).map(({ type, afterPiece }) => `${type}${afterPiece ? ' after a piece' : ''}`),
  );
  return [...new Set(kinds)].sort();
}

/** A path as a readable name, e.g. `empty → text.type → typed → message.submit → sending`. */
export function describeVisitorPath(path: TestPath<ModelSnapshot, EventObject>): string {
  const [start, ...steps] = path.steps;
  return [String(start.state.value), ...steps.map((step) => `${step.event.type} → ${String(step.state.value)}`)].join(
    ' → ',
  );
}

/** How much of the model a set of paths exercises: the states and transitions declared but never reached. */
export interface ModelCoverage {
  states: { total: number; uncovered: string[] };
  /** Transitions as `source --event--> target`; a self-loop has its source as its target. */
  transitions: { total: number; uncovered: string[] };
}

/**
 * Checks paths against the machine's own declaration (each state node and each transition in its `on`), so that a
 * state or a transition that no path reaches shows up here whatever generated the paths. Pure: reads its arguments
 * only. Works for flat machines without guards, like the visitor models.
 */
export function getModelCoverage<TSnapshot extends ModelSnapshot, TEvent extends EventObject>(
  paths: readonly StatePath<TSnapshot, TEvent>[],
  machine: AnyStateMachine,
): ModelCoverage {
  const declaredStates = Object.keys(machine.root.states);
  const declaredTransitions = Object.values(machine.root.states).flatMap((node) =>
    [...node.transitions.entries()].flatMap(([eventType, definitions]) =>
      definitions.map((definition) => transitionKey(node.key, eventType, definition.target?.[0]?.key ?? node.key)),
    ),
  );

  const seenStates = new Set<string>();
  const seenTransitions = new Set<string>();
  for (const path of paths) {
    path.steps.forEach((step, index) => {
      seenStates.add(stateOf(step.state));
      if (index > 0) {
        seenTransitions.add(transitionKey(stateOf(path.steps[index - 1].state), step.event.type, stateOf(step.state)));
      }
    });
    seenStates.add(stateOf(path.state));
  }

  return {
    states: { total: declaredStates.length, uncovered: declaredStates.filter((state) => !seenStates.has(state)) },
    transitions: {
      total: declaredTransitions.length,
      uncovered: declaredTransitions.filter((transition) => !seenTransitions.has(transition)),
    },
  };
}

/** One event of a path, with what a driver needs to pick its payload. */
export interface PathEvent {
  type: VisitorEvent['type'];
  /** The state the event leads to. */
  target: VisitorState;
  /** Whether a piece of the pending reply arrived before this event (so a stream is open). */
  afterPiece: boolean;
}

/** The events of a path, in order. */
export function pathEvents(path: VisitorPath): PathEvent[] {
  let afterPiece = false;
  return path.steps.slice(1).map((step) => {
    const target = stateOf(step.state);
    const event = { type: step.event.type, target, afterPiece };
    // A request starts (and no piece of it has arrived yet), or a piece arrives.
    if (target === 'waiting' || target === 'retrying') afterPiece = false;
    if (step.event.type === 'reply.piece') afterPiece = true;
    return event;
  });
}

/** The kinds of payload a driver picks for the model's events: what is typed, and what the provider answers. */
export type PayloadPool = 'texts' | 'blanks' | 'replies' | 'empty' | 'failures' | 'pieces' | 'breaks';

/**
 * The pools a path's run draws from, in order: a text or whitespace typed, a piece of a reply, a whole reply (not
 * after pieces: then the reply is the pieces), an empty reply, and a failure (a stream that breaks, after pieces).
 */
export function payloadDraws(path: VisitorPath): PayloadPool[] {
  return pathEvents(path).flatMap(({ type, afterPiece }): PayloadPool[] => {
    if (type === 'text.type') return ['texts'];
    if (type === 'whitespace.type') return ['blanks'];
    if (type === 'reply.piece') return ['pieces'];
    if (type === 'reply.content' && !afterPiece) return ['replies'];
    if (type === 'reply.empty') return ['empty'];
    if (type === 'reply.fail') return [afterPiece ? 'breaks' : 'failures'];
    return [];
  });
}

/** One run of a path, and where each pool of payloads starts for it. */
export interface PathRun {
  path: VisitorPath;
  /** The path's description; a path run again for payloads no earlier run used says so. */
  name: string;
  seeds: Record<PayloadPool, number>;
}

/** The runs, and per pool the payloads (by index) that none of them uses: none, when the plan is complete. */
export interface PayloadPlan {
  runs: PathRun[];
  unused: Record<PayloadPool, number[]>;
}

/**
 * Seeds each path's payload counters where the paths before it left off, so that the paths together use the payloads
 * of each pool in turn instead of each path starting again at the first. `payloadDraws` says which pool each payload a
 * path's driver takes comes from, in order. A pool with more payloads than the paths take runs a path that takes
 * from it again, with the next payloads, until every payload has run.
 */
export function planPayloads(paths: readonly VisitorPath[], sizes: Record<PayloadPool, number>): PayloadPlan {
  const pools = Object.keys(sizes) as PayloadPool[];
  const next = Object.fromEntries(pools.map((pool) => [pool, 0])) as Record<PayloadPool, number>;
  const used = Object.fromEntries(pools.map((pool) => [pool, new Set<number>()])) as Record<PayloadPool, Set<number>>;
  const runs: PathRun[] = [];
  const add = (path: VisitorPath, name: string) => {
    runs.push({ path, name, seeds: { ...next } });
    for (const pool of payloadDraws(path)) used[pool].add(next[pool]++ % sizes[pool]);
  };
  for (const path of paths) add(path, describeVisitorPath(path));
  for (const pool of pools) {
    const taker = paths.find((path) => payloadDraws(path).includes(pool));
    while (taker && used[pool].size < sizes[pool]) {
      const again = runs.filter((run) => run.path === taker).length + 1;
      add(taker, `${describeVisitorPath(taker)} (run ${again}, for the next payloads)`);
    }
  }
  const unused = Object.fromEntries(
    pools.map((pool) => [pool, [...Array(sizes[pool]).keys()].filter((index) => !used[pool].has(index))]),
  ) as Record<PayloadPool, number[]>;
  return { runs, unused };
}

/**
 * What a driver draws its payloads with on one run: `next(pool, list)` gives the pool's next payload, from the run's
 * seed on; `drawn` records the pools drawn from, for the driver to check against the plan.
 */
export function payloadDrawer(run: PathRun) {
  const counts: Partial<Record<PayloadPool, number>> = {};
  const drawn: PayloadPool[] = [];
  return {
    drawn,
    next<T>(pool: PayloadPool, list: readonly T[]): T {
      const count = counts[pool] ?? 0;
      counts[pool] = count + 1;
      drawn.push(pool);
      return list[(run.seeds[pool] + count) % list.length];
    },
  };
}
