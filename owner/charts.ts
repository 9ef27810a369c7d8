import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const HEIGHT = 220;
// As wide as the page's column (owner-page.css: `main`), as its tables are.
const MAX_WIDTH = 768;
const HALF_DAY_S = 12 * 60 * 60;
/** A line's points, in CSS px: a day alone, with no line to either side, still shows as a dot. */
const POINT_SIZE = 9;
/** The share of the y axis's span left free below 0 and above the top, so that points there are drawn whole. */
const POINT_ROOM = 0.06;

/** A colour of the page's scheme (owner/owner-page.css): a canvas cannot read CSS variables itself. */
function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function widthOf(container: HTMLElement): number {
  return Math.min(container.clientWidth || MAX_WIDTH, MAX_WIDTH);
}

export interface DayChart {
  /** Each day's midnight, UTC, in seconds. */
  times: number[];
  values: (number | null)[];
  label: string;
  kind: 'bars' | 'line';
  /** The y axis's tick text, e.g. "40%". */
  unit?: string;
}

/**
 * One series by UTC day, drawn with uPlot into `container` in the page's current colours; the caller draws again when
 * the scheme changes. The canvas is a picture: the figure's caption and the figures written beside it say the same.
 */
export function drawDayChart(container: HTMLElement, chart: DayChart): uPlot {
  const text = cssColor('--fg');
  const grid = cssColor('--grid');
  const accent = cssColor('--accent');
  const axis: uPlot.Axis = { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid } };
  const unit = chart.unit ?? '';
  return new uPlot(
    {
      width: widthOf(container),
      height: HEIGHT,
      // The counts are per UTC day: the axis says the days as the server counted them, whatever the owner's zone.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      legend: { show: false },
      cursor: { show: false },
      scales: {
        // Half a day beyond the first and the last day: the bars of the days at either end are drawn whole, not cut
        // in half by the plot's edge (with one day of data its bar is the last and the only one).
        x: { range: (_u, min, max) => [min - HALF_DAY_S, max + HALF_DAY_S] },
        // A line's points are drawn whole at 0 too, a little above the plot's bottom edge; bars stand on it.
        y: {
          range: (_u, _min, max) => {
            const top = Math.max(unit ? 100 : 1, max);
            return [
              chart.kind === 'line' ? -top * POINT_ROOM : 0,
              chart.kind === 'line' ? top * (1 + POINT_ROOM) : top,
            ];
          },
        },
      },
      axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((tick) => `${tick}${unit}`) }],
      series: [
        {},
        {
          label: chart.label,
          stroke: accent,
          // A line 2 px wide; bars filled only, so that a day with none draws nothing (a stroke would draw a dash).
          width: chart.kind === 'bars' ? 0 : 2,
          fill: chart.kind === 'bars' ? accent : undefined,
          paths: chart.kind === 'bars' ? uPlot.paths.bars?.({ size: [0.6, 24] }) : undefined,
          // Every day's point, large enough to see alone: with few days of data, a day between two days without
          // replies has no line to either side, only its point.
          points: { show: chart.kind === 'line', size: POINT_SIZE, fill: accent, stroke: accent },
          spanGaps: false,
        },
      ],
    },
    [chart.times, chart.values],
    container,
  );
}
