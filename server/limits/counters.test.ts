import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryCounters } from './counters.ts';
import { nextUtcMidnight, readUsage } from './spend-cap.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('counts in memory', () => {
  it('count until their window ends, then start again', async () => {
    vi.useFakeTimers({ now: 0 });
    const counters = new MemoryCounters();

    expect([await counters.add('a', 1, 1_000), await counters.add('a', 2, 1_000)]).toEqual([1, 3]);
    vi.advanceTimersByTime(1_000);
    expect(await counters.add('a', 1, 2_000)).toBe(1);
  });

  it('add within a limit only what fits, in one step, and always take amounts back', async () => {
    const counters = new MemoryCounters();

    expect(await counters.add('t', 6, Date.now() + 1_000, 10)).toBe(6);
    expect(await counters.add('t', 5, Date.now() + 1_000, 10)).toBeUndefined();
    expect(await counters.add('t', 4, Date.now() + 1_000, 10)).toBe(10);
    expect(await counters.add('t', -3, Date.now() + 1_000, 10)).toBe(7);
  });

  it('forget expired keys, so that many one-off clients do not grow the map without end', async () => {
    vi.useFakeTimers({ now: 0 });
    const counters = new MemoryCounters();
    for (let client = 0; client < 1_000; client += 1) await counters.add(`rate:${client}`, 1, 60_000);
    expect(counters.size).toBe(1_000);

    vi.advanceTimersByTime(61_000);
    await counters.add('rate:late', 1, 120_000);

    expect(counters.size).toBe(1);
  });
});

describe('the spend cap', () => {
  it("reads a provider's usage, and knows when the UTC day ends", () => {
    expect(readUsage({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 })).toEqual({
      prompt: 3,
      completion: 4,
      total: 7,
    });
    expect(readUsage({ prompt_tokens: 3, completion_tokens: 4 })).toEqual({ prompt: 3, completion: 4, total: 7 });
    expect(readUsage(null)).toBeUndefined();
    expect(readUsage({ total_tokens: 'many' })).toBeUndefined();
    expect(nextUtcMidnight(Date.UTC(2026, 10, 22, 23, 59, 59))).toBe(Date.UTC(2026, 10, 23));
    expect(nextUtcMidnight(Date.UTC(2026, 11, 31, 0, 0, 0))).toBe(Date.UTC(2027, 0, 1));
  });
});
