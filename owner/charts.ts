import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const HEIGHT = 220;
const MAX_WIDTH = 720;

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
      scales: { y: { range: (_u, _min, max) => [0, Math.max(unit ? 100 : 1, max)] } },
      axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((tick) => `${tick}${unit}`) }],
      series: [
        {},
        {
          label: chart.label,
          stroke: accent,
          width: 2,
          fill: chart.kind === 'bars' ? accent : undefined,
          paths: chart.kind === 'bars' ? uPlot.paths.bars?.({ size: [0.6, 24] }) : undefined,
          points: { show: chart.kind === 'line' },
          spanGaps: false,
        },
      ],
    },
    [chart.times, chart.values],
    container,
  );
}
