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

  it('lists the days that had messages to a person, newest first, and their total', () => {
    const handoffs = (offered: number, sent: number, delivered: number, failed: number) => ({
      handoffs: { offered, sent, delivered, failed },
    });
    const view = statsView({
      from: '2026-11-23',
      to: '2026-11-25',
      totals: counts(handoffs(5, 3, 2, 1)),
      days: [
        { date: '2026-11-23', ...counts(handoffs(2, 1, 0, 1)) },
        { date: '2026-11-24', ...counts({}) },
        { date: '2026-11-25', ...counts(handoffs(3, 2, 2, 0)) },
      ],
      down_sources: [],
    });
    expect(view.handoffs).toEqual({ offered: 5, sent: 3, delivered: 2, failed: 1 });
    expect(view.handoffDays).toEqual([
      { date: '2026-11-25', offered: 3, sent: 2, delivered: 2, failed: 0 },
      { date: '2026-11-23', offered: 2, sent: 1, delivered: 0, failed: 1 },
    ]);
  });

  it('writes a share of nothing as a dash', () => {
    expect(
      percentText(statsView({ from: '', to: '', totals: counts({}), days: [], down_sources: [] }).answeredFromPages),
    ).toBe('—');
  });
});
