import { describe, expect, it } from 'vitest';
import type { Stats } from '../contract/feedback';
import { statsCounts as counts } from '../testing/stats-counts';
import { percentText, statsView } from './stats-view';

describe('the owner page’s figures', () => {
  it('shares the replies by day, with a gap (not 0%) on a day without replies', () => {
    const stats: Stats = {
      from: '2026-11-24',
      to: '2026-11-25',
      totals: counts({
        conversations: 2,
        messages: 5,
        with_sources: 3,
        without_sources: 1,
        up: 2,
        down: 1,
        down_reasons: { wrong: 0, outdated: 1, unclear: 0, off_topic: 0, other: 0 },
      }),
      days: [
        { date: '2026-11-24', ...counts({}) },
        { date: '2026-11-25', ...counts({ messages: 5, with_sources: 3, without_sources: 1 }) },
      ],
      down_sources: [{ address: 'https://shop.example/returns', down: 1 }],
    };
    const view = statsView(stats);
    expect(view.times).toEqual([Date.UTC(2026, 10, 24) / 1000, Date.UTC(2026, 10, 25) / 1000]);
    expect(view.messages).toEqual([0, 5]);
    expect(view.conversations).toBe(2);
    expect(view.uncovered).toEqual([null, 25]);
    expect(percentText(view.answeredFromPages)).toBe('75%');
    expect(view.reasons).toContainEqual({ name: 'Out of date', count: 1 });
    expect(view.reasons.map((reason) => reason.name)).toEqual([
      'Wrong',
      'Out of date',
      'Unclear',
      'Not what I asked',
      'Something else',
    ]);
  });

  it('writes a share of nothing as a dash', () => {
    expect(
      percentText(statsView({ from: '', to: '', totals: counts({}), days: [], down_sources: [] }).answeredFromPages),
    ).toBe('—');
  });
});
