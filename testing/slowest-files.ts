// What `npm test` prints at the end of each part (the unit files, the browser files): the ten files that took longest,
// so that whoever makes the command slower sees it, and whoever speeds it up knows where to look.
import type { Reporter as PlaywrightReporter, TestCase, TestResult } from '@playwright/test/reporter';
import type { Reporter as VitestReporter } from 'vitest/reporters';

/** The `count` slowest of `times` (file → ms), slowest first, as the lines printed under `title`. */
export function slowestLines(title: string, times: ReadonlyMap<string, number>, count = 10): string[] {
  const slowest = [...times].sort(([, a], [, b]) => b - a).slice(0, count);
  const width = Math.max(...slowest.map(([, ms]) => (ms / 1000).toFixed(1).length));
  return [
    `${title}: the ${slowest.length} slowest files`,
    ...slowest.map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(width)} s  ${file}`),
  ];
}

/** Vitest's: a file's time is its own (set up, import, tests), whatever ran beside it. */
export class VitestSlowestFiles implements VitestReporter {
  onTestRunEnd: VitestReporter['onTestRunEnd'] = (modules) => {
    const times = new Map<string, number>();
    for (const module of modules) {
      const d = module.diagnostic();
      const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      times.set(`${module.project.name}: ${module.relativeModuleId}`, ms);
    }
    if (times.size > 0) console.log(`\n${slowestLines('Unit tests', times).join('\n')}\n`);
  };
}

/** One test's run, as the gaps between runs are worked out from. */
export interface Run {
  slot: number;
  worker: number;
  start: number;
  end: number;
}

/**
 * The time each parallel slot spent between its tests (ms), split by whether the same worker process went on or a new
 * one took over: the second is what a worker's start, its browser, its servers and the old one's end cost.
 */
export function gapsBetween(runs: readonly Run[]): { sameWorker: number; newWorker: number; workerChanges: number } {
  const gaps = { sameWorker: 0, newWorker: 0, workerChanges: 0 };
  const slots = new Map<number, Run[]>();
  for (const run of runs) slots.set(run.slot, [...(slots.get(run.slot) ?? []), run]);
  for (const slot of slots.values()) {
    const sorted = slot.sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const gap = Math.max(0, sorted[i].start - sorted[i - 1].end);
      if (sorted[i].worker === sorted[i - 1].worker) gaps.sameWorker += gap;
      else {
        gaps.newWorker += gap;
        gaps.workerChanges++;
      }
    }
  }
  return gaps;
}

/**
 * Playwright's: a file's time is the sum of its tests' (each project's run of it apart). It also says how many worker
 * processes ran them, and how long the slots waited between tests: each worker starts a browser and its servers, and
 * Playwright starts one per set of fixtures a file uses.
 */
export class PlaywrightSlowestFiles implements PlaywrightReporter {
  private readonly times = new Map<string, number>();
  private readonly runs: Run[] = [];

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = `${test.parent.project()?.name ?? ''}: ${test.location.file.replace(`${process.cwd()}/`, '')}`;
    this.times.set(file, (this.times.get(file) ?? 0) + result.duration);
    if (result.workerIndex < 0) return;
    const start = result.startTime.getTime();
    this.runs.push({ slot: result.parallelIndex, worker: result.workerIndex, start, end: start + result.duration });
  }

  onEnd(): void {
    if (this.times.size === 0) return;
    const total = [...this.times.values()].reduce((sum, ms) => sum + ms, 0);
    const workers = new Set(this.runs.map((run) => run.worker)).size;
    const gaps = gapsBetween(this.runs);
    const s = (ms: number) => (ms / 1000).toFixed(1);
    console.log(`\n${slowestLines('Browser tests', this.times).join('\n')}`);
    console.log(`  ${s(total)} s of tests in all, in ${workers} worker processes`);
    console.log(
      `  between tests: ${s(gaps.sameWorker)} s in the same worker, ${s(gaps.newWorker)} s at ${gaps.workerChanges} changes of worker\n`,
    );
  }

  printsToStdio(): boolean {
    return false;
  }
}
