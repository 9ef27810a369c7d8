import type { ListSizeFigures, OverheadFigures, StartupFigures, StreamCostFigures } from './browser.ts';
import type { LighthouseFigures } from './lighthouse.ts';

interface Pair<T> {
  app: T;
  baseline: T;
}

/** Everything one run measured; written to bench/results/latest.json. */
export interface BenchResults {
  date: string;
  commit: string;
  /** The working tree had uncommitted changes when measured. */
  treeChanged: boolean;
  environment: {
    node: string;
    chromium: string;
    cpus: number;
    cpuModel: string;
    loadAverageBefore: number[];
    loadAverageAfter: number[];
    lighthouseRuns: number;
  };
  budgetBytes: number;
  startup: Pair<StartupFigures>;
  lighthouse: { mobile: Pair<LighthouseFigures>; desktop: Pair<LighthouseFigures> };
  overhead: Pair<OverheadFigures>;
  lists: Pair<ListSizeFigures[]>;
  streaming: Pair<StreamCostFigures>;
  wallSeconds: number;
}

/**
 * How many ms "a few milliseconds" of per-message overhead may be: what the app adds to the same path in the
 * no-framework page, which is what the browser itself takes (its response→DOM time alone is several ms here).
 */
export const OVERHEAD_TARGET_MS = 5;
/** An append in a long list may cost at most this many times an append in a short one. */
export const APPEND_GROWTH_LIMIT = 1.5;
/** Memory per message between list sizes may vary by this fraction and still count as proportional. */
export const MEMORY_SLOPE_TOLERANCE = 0.25;

interface Row {
  figure: string;
  app: string;
  baseline: string;
  ratio: string;
  target: string;
  met: string;
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : 'n/a');
const plain = (value: number | null, digits = 0) =>
  value === null || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
const ratio = (app: number, baseline: number) =>
  Number.isFinite(app) && Number.isFinite(baseline) && baseline > 0 ? `${(app / baseline).toFixed(2)}×` : '—';
const met = (ok: boolean) => (ok ? 'yes' : 'NO');

/** Heap bytes per message between two list sizes. */
function slope(lists: ListSizeFigures[], from: number, to: number, pick: (figures: ListSizeFigures) => number) {
  const a = lists.find((figures) => figures.messages >= from);
  const b = [...lists].reverse().find((figures) => figures.messages <= to);
  if (!a || !b || b.messages === a.messages) return Number.NaN;
  return (pick(b) - pick(a)) / (b.messages - a.messages);
}
const heapOf = (figures: ListSizeFigures) => figures.jsHeapBytes + figures.domHeapBytes;

/** The verdicts of the issue's targets, for the table and the JSON. */
export function evaluate(results: BenchResults) {
  const { startup, lighthouse, overhead, lists } = results;
  const at = (size: number) => lists.app.find((figures) => figures.messages >= size && figures.messages < size * 1.5);
  const append10 = at(10)?.appendMs ?? Number.NaN;
  const appendGrowth = Math.max(...[1000, 2000].map((size) => (at(size)?.appendMs ?? Number.NaN) / append10));
  const slopes = [slope(lists.app, 10, 1000, heapOf), slope(lists.app, 1000, 2000, heapOf)];
  return {
    startUpBudget: startup.app.startUpGzipBytes <= results.budgetBytes,
    mobilePerformance: lighthouse.mobile.app.performance >= 95,
    accessibility: lighthouse.mobile.app.accessibility === 100 && lighthouse.desktop.app.accessibility === 100,
    bestPractices: lighthouse.mobile.app.bestPractices === 100 && lighthouse.desktop.app.bestPractices === 100,
    desktopPerformance: lighthouse.desktop.app.performance === 100,
    noLayoutShift: lighthouse.mobile.app.cls === 0 && lighthouse.desktop.app.cls === 0,
    appendFlat: appendGrowth <= APPEND_GROWTH_LIMIT,
    appendGrowth,
    oneRowPerAppend: lists.app.every((figures) => figures.maxRenderedRows === 1 && figures.maxAddedRows === 1),
    memoryProportional:
      Math.abs(slopes[1] - slopes[0]) <= MEMORY_SLOPE_TOLERANCE * Math.max(slopes[0], slopes[1]) && slopes[0] > 0,
    memorySlopes: slopes,
    sendOverhead: overhead.app.enterToRequestMs - overhead.baseline.enterToRequestMs <= OVERHEAD_TARGET_MS,
    receiveOverhead: overhead.app.firstByteToDomMs - overhead.baseline.firstByteToDomMs <= OVERHEAD_TARGET_MS,
  };
}

function lighthouseRows(label: string, pair: Pair<LighthouseFigures>, performanceTarget: number): Row[] {
  const { app, baseline } = pair;
  const verdicts = {
    performance: met(app.performance >= performanceTarget),
    accessibility: met(app.accessibility === 100),
    bestPractices: met(app.bestPractices === 100),
  };
  const metric = (name: string, pick: (figures: LighthouseFigures) => number): Row => ({
    figure: `${label}: ${name}`,
    app: ms(pick(app)),
    baseline: ms(pick(baseline)),
    ratio: ratio(pick(app), pick(baseline)),
    target: '',
    met: '',
  });
  return [
    {
      figure: `${label}: performance`,
      app: plain(app.performance),
      baseline: plain(baseline.performance),
      ratio: ratio(app.performance, baseline.performance),
      target: `≥ ${performanceTarget}`,
      met: verdicts.performance,
    },
    metric('first contentful paint', (figures) => figures.fcpMs),
    metric('largest contentful paint', (figures) => figures.lcpMs),
    metric('total blocking time', (figures) => figures.tbtMs),
    {
      figure: `${label}: cumulative layout shift`,
      app: plain(app.cls, 3),
      baseline: plain(baseline.cls, 3),
      ratio: '—',
      target: '0',
      met: met(app.cls === 0),
    },
    {
      figure: `${label}: accessibility`,
      app: plain(app.accessibility),
      baseline: plain(baseline.accessibility),
      ratio: ratio(app.accessibility, baseline.accessibility),
      target: '100',
      met: verdicts.accessibility,
    },
    {
      figure: `${label}: best practices`,
      app: plain(app.bestPractices),
      baseline: plain(baseline.bestPractices),
      ratio: ratio(app.bestPractices, baseline.bestPractices),
      target: '100',
      met: verdicts.bestPractices,
    },
  ];
}

/** The results as a Markdown table (figures, ratio to the baseline, target, verdict), with a line of context. */
export function renderTable(results: BenchResults): string {
  const { startup, lighthouse, overhead, lists, streaming, environment } = results;
  const verdicts = evaluate(results);
  const rows: Row[] = [
    {
      figure: 'Start-up JS (entry + static imports), gzip -9',
      app: kb(startup.app.startUpGzipBytes),
      baseline: kb(startup.baseline.startUpGzipBytes),
      ratio: ratio(startup.app.startUpGzipBytes, startup.baseline.startUpGzipBytes),
      target: `≤ ${kb(results.budgetBytes)}`,
      met: met(verdicts.startUpBudget),
    },
    {
      figure: 'Start-up JS as served (brotli)',
      app: kb(startup.app.startUpWireBytes),
      baseline: kb(startup.baseline.startUpWireBytes),
      ratio: ratio(startup.app.startUpWireBytes, startup.baseline.startUpWireBytes),
      target: '',
      met: '',
    },
    {
      figure: 'JS loaded later (prefetched when idle), gzip -9',
      app: kb(startup.app.lazyGzipBytes),
      baseline: kb(startup.baseline.lazyGzipBytes),
      ratio: '—',
      target: '',
      met: '',
    },
    {
      figure: 'First contentful paint (no throttling)',
      app: ms(startup.app.fcpMs),
      baseline: ms(startup.baseline.fcpMs),
      ratio: ratio(startup.app.fcpMs, startup.baseline.fcpMs),
      target: '',
      met: '',
    },
    {
      figure: 'Card accepts typing (no throttling)',
      app: ms(startup.app.readyMs),
      baseline: ms(startup.baseline.readyMs),
      ratio: ratio(startup.app.readyMs, startup.baseline.readyMs),
      target: '',
      met: '',
    },
    ...lighthouseRows('Lighthouse mobile', lighthouse.mobile, 95),
    ...lighthouseRows('Lighthouse desktop', lighthouse.desktop, 100).filter(
      (row) => !/contentful|accessibility|best practices/.test(row.figure),
    ),
  ];

  lists.app.forEach((app, index) => {
    const baseline = lists.baseline[index];
    const isLong = app.messages >= 1000;
    rows.push({
      figure: `Append one message at ${app.messages} messages (submit → painted)`,
      app: ms(app.appendMs),
      baseline: ms(baseline?.appendMs ?? Number.NaN),
      ratio: ratio(app.appendMs, baseline?.appendMs ?? Number.NaN),
      target: isLong ? `≤ ${APPEND_GROWTH_LIMIT}× the 10-message cost` : '',
      met: isLong ? met(app.appendMs / lists.app[0].appendMs <= APPEND_GROWTH_LIMIT) : '',
    });
  });
  rows.push({
    figure: 'Message rows rendered per append (worst, all sizes)',
    app: plain(Math.max(...lists.app.map((figures) => figures.maxRenderedRows ?? Number.NaN))),
    baseline: 'n/a (no React)',
    ratio: '—',
    target: '1 (the new one)',
    met: met(verdicts.oneRowPerAppend),
  });
  rows.push({
    // The app shows a typing indicator while the reply is awaited (the plain page has none): one more node, no more.
    figure: 'Other DOM changes in the list per append (worst)',
    app: plain(Math.max(...lists.app.map((figures) => figures.maxOtherMutations))),
    baseline: plain(Math.max(...lists.baseline.map((figures) => figures.maxOtherMutations))),
    ratio: '—',
    target: '≤ 1 (the typing indicator)',
    met: met(lists.app.every((figures) => figures.maxOtherMutations <= 1)),
  });
  const bytesPerMessage = (pair: Pair<ListSizeFigures[]>, from: number, to: number) => ({
    app: slope(pair.app, from, to, heapOf),
    baseline: slope(pair.baseline, from, to, heapOf),
  });
  for (const [from, to] of [
    [10, 1000],
    [1000, 2000],
  ] as const) {
    const perMessage = bytesPerMessage(lists, from, to);
    rows.push({
      figure: `Heap per message, JS + DOM, ${from} → ${to} messages`,
      app: `${plain(perMessage.app)} B`,
      baseline: `${plain(perMessage.baseline)} B`,
      ratio: ratio(perMessage.app, perMessage.baseline),
      target: to === 2000 ? `within ${MEMORY_SLOPE_TOLERANCE * 100}% of the line above` : '',
      met: to === 2000 ? met(verdicts.memoryProportional) : '',
    });
  }
  const last = lists.app[lists.app.length - 1];
  rows.push({
    figure: 'Message text per message (for scale)',
    app: `${plain(last.textChars / last.messages)} B`,
    baseline: `${plain(last.textChars / last.messages)} B`,
    ratio: '—',
    target: '',
    met: '',
  });
  rows.push(
    {
      figure: 'Enter → request leaves the page (median)',
      app: ms(overhead.app.enterToRequestMs),
      baseline: ms(overhead.baseline.enterToRequestMs),
      ratio: ratio(overhead.app.enterToRequestMs, overhead.baseline.enterToRequestMs),
      target: `≤ baseline + ${OVERHEAD_TARGET_MS} ms`,
      met: met(verdicts.sendOverhead),
    },
    {
      figure: 'Enter → first piece of the reply painted (median)',
      app: ms(overhead.app.enterToFirstPaintMs),
      baseline: ms(overhead.baseline.enterToFirstPaintMs),
      ratio: ratio(overhead.app.enterToFirstPaintMs, overhead.baseline.enterToFirstPaintMs),
      target: '',
      met: '',
    },
    {
      figure: 'First byte of the response → first piece in the DOM (median)',
      app: ms(overhead.app.firstByteToDomMs),
      baseline: ms(overhead.baseline.firstByteToDomMs),
      ratio: ratio(overhead.app.firstByteToDomMs, overhead.baseline.firstByteToDomMs),
      target: `≤ baseline + ${OVERHEAD_TARGET_MS} ms`,
      met: met(verdicts.receiveOverhead),
    },
    {
      figure: `Main-thread time per streamed piece (${streaming.app.pieces}-piece reply, median)`,
      app: ms(streaming.app.msPerPiece),
      baseline: ms(streaming.baseline.msPerPiece),
      ratio: ratio(streaming.app.msPerPiece, streaming.baseline.msPerPiece),
      target: '',
      met: '',
    },
  );

  const header: Row = {
    figure: 'Figure',
    app: 'App',
    baseline: 'Baseline',
    ratio: 'App ÷ baseline',
    target: 'Target',
    met: 'Met',
  };
  const columns: (keyof Row)[] = ['figure', 'app', 'baseline', 'ratio', 'target', 'met'];
  const widths = columns.map((column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
  const line = (row: Row) => `| ${columns.map((column, index) => row[column].padEnd(widths[index])).join(' | ')} |`;
  const rule = `|${widths.map((width, index) => (index === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const context =
    `Measured ${results.date.slice(0, 16).replace('T', ' ')} UTC at ${results.commit}${results.treeChanged ? ' (with uncommitted changes)' : ''}; ` +
    `${environment.chromium}, ${environment.cpus} CPUs (${environment.cpuModel}), Node ${environment.node}; ` +
    `load average ${load(environment.loadAverageBefore)} before, ${load(environment.loadAverageAfter)} after; ` +
    `Lighthouse ${environment.lighthouseRuns} run(s) each, median; run took ${results.wallSeconds} s.`;
  return [line(header), rule, ...rows.map(line), '', context].join('\n');
}
