import { describe, expect, it } from 'vitest';
import { progressLines, SERVER_PROGRESS_MS } from './progress.ts';

describe('progressLines', () => {
  it('says pages done of the total, the rate and the time left, at most once per interval', () => {
    const lines: string[] = [];
    let now = 1_000_000;
    const progress = progressLines(
      (line) => lines.push(line),
      SERVER_PROGRESS_MS,
      () => now,
    );
    const at = (seconds: number, done: number, total: number) => {
      now = 1_000_000 + seconds * 1000;
      progress(done, total);
    };
    at(1, 10, 1000);
    at(9.9, 99, 1000);
    expect(lines).toEqual([]);
    at(10, 100, 1000);
    at(15, 150, 1000);
    at(19.9, 199, 1000);
    at(20, 200, 1000);
    at(45, 1400, 12_000);
    at(60, 12_000, 12_000);
    expect(lines).toEqual([
      '[knowledge] 100 of 1,000 pages, 10.0 pages/s, about 1m30s left',
      '[knowledge] 200 of 1,000 pages, 10.0 pages/s, about 1m20s left',
      '[knowledge] 1,400 of 12,000 pages, 31.1 pages/s, about 5m41s left',
      '[knowledge] 12,000 of 12,000 pages, 200.0 pages/s, about 0s left',
    ]);
  });

  it('says nothing before the first page is done', () => {
    const lines: string[] = [];
    let now = 0;
    const progress = progressLines(
      (line) => lines.push(line),
      0,
      () => now,
    );
    now = 30_000;
    progress(0, 500);
    expect(lines).toEqual([]);
    progress(1, 500);
    expect(lines).toEqual(['[knowledge] 1 of 500 pages, 0.0 pages/s, about 249m30s left']);
  });
});
