import { describe, expect, it } from 'vitest';
import { slowestLines } from './slowest-files.ts';

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
