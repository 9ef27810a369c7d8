import { describe, expect, it } from 'vitest';
import { gapsBetween, slowestLines } from './slowest-files.ts';

describe('the slowest files', () => {
  it('are the ten that took longest, slowest first, in seconds', () => {
    const times = new Map(Array.from({ length: 12 }, (_, i) => [`f${i}.test.ts`, (i + 1) * 1_000] as const));
    const lines = slowestLines('Unit tests', times);
    expect(lines[0]).toBe('Unit tests: the 10 slowest files');
    expect(lines.slice(1)).toHaveLength(10);
    expect(lines[1]).toBe('  12.0 s  f11.test.ts');
    expect(lines[10]).toBe('   3.0 s  f2.test.ts');
  });
});

describe('the gaps between browser tests', () => {
  it('add up per slot, apart for a worker that goes on and one that takes over', () => {
    const gaps = gapsBetween([
      { slot: 0, worker: 0, start: 0, end: 1_000 },
      { slot: 1, worker: 1, start: 0, end: 5_000 },
      { slot: 0, worker: 0, start: 1_200, end: 2_000 },
      { slot: 0, worker: 2, start: 5_000, end: 6_000 },
      { slot: 1, worker: 1, start: 5_500, end: 7_000 },
      // Overlapping runs of one slot (a clock step) count as no gap.
      { slot: 1, worker: 1, start: 6_900, end: 8_000 },
    ]);
    expect(gaps).toEqual({ sameWorker: 700, newWorker: 3_000, workerChanges: 1 });
  });
});
