import { describe, expect, it } from 'vitest';
import { oncePerWindow } from './once-per-window.ts';

describe('once per key per window', () => {
  it('says each key once per window, each on its own clock from when it was first seen', () => {
    let now = 0;
    const first = oncePerWindow(60_000, () => now);
    expect([first('a'), first('a')]).toEqual([true, false]);
    now = 30_000;
    expect([first('b'), first('a')]).toEqual([true, false]);
    now = 60_000;
    expect([first('a'), first('a'), first('b')]).toEqual([true, false, false]);
    now = 90_000;
    expect(first('b')).toBe(true);
  });

  it('with a key cap, forgets the oldest key first when more keys come than it may hold', () => {
    const now = 0;
    const first = oncePerWindow(60_000, () => now, 2);
    expect([first('a'), first('b'), first('c')]).toEqual([true, true, true]);
    // 'a' was forgotten to make room for 'c'; 'b' and 'c' are still held.
    expect([first('b'), first('c'), first('a')]).toEqual([false, false, true]);
    expect(first('b')).toBe(true);
  });
});
