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

/**
 * Playwright's: a file's time is the sum of its tests' (each project's run of it apart). It also says how many worker
 * processes ran them: each starts a browser and a server, and Playwright starts one per set of fixtures a file uses.
 */
export class PlaywrightSlowestFiles implements PlaywrightReporter {
  private readonly times = new Map<string, number>();
  private readonly workers = new Set<number>();

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = `${test.parent.project()?.name ?? ''}: ${test.location.file.replace(`${process.cwd()}/`, '')}`;
    this.times.set(file, (this.times.get(file) ?? 0) + result.duration);
    if (result.workerIndex >= 0) this.workers.add(result.workerIndex);
  }

  onEnd(): void {
    if (this.times.size === 0) return;
    const total = [...this.times.values()].reduce((sum, ms) => sum + ms, 0);
    console.log(`\n${slowestLines('Browser tests', this.times).join('\n')}`);
    console.log(`  ${(total / 1000).toFixed(1)} s of tests in all, in ${this.workers.size} worker processes\n`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
