// `npm run bench`: builds the app, serves it with the production server (against a fake provider on loopback that
// answers at once) next to a no-framework baseline page, measures both in Chromium, runs Lighthouse on both and on a
// host page of another origin without and with the embed snippet, prints the tables and writes them to
// bench/results/bench.md (every figure also to bench.json). Options: `--runs=N` Lighthouse runs per page and form
// factor (default 3, median kept).
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { chromium as playwrightChromium } from '@playwright/test';
import { LAZY_BUDGETS_BYTES, START_UP_BUDGET_BYTES } from '../build/size-budget.ts';
import { chromiumExecutable } from '../testing/chromium.ts';
import { startFakeProvider } from '../testing/fake-provider.ts';
import { hostPageHtml, startHostSite } from '../testing/host-site.ts';
import { streamedMarkdownReply } from '../testing/markdown-reply.ts';
import {
  type ListSizeFigures,
  launchBrowser,
  measureListSizes,
  measureOverhead,
  measureStartup,
  type StreamFigures,
  streamProbe,
} from './browser.ts';
import { type LighthouseFigures, runLighthouse, startDebugChromium } from './lighthouse.ts';
import { BASELINE_PATH, buildAll, startServer } from './serve.ts';
import { kb, machineLine, markdownTable, met, ms, runsFlag, writeResults } from './table.ts';

const LIST_SIZES = [10, 100, 1000, 2000];
/** The targets. */
const OVERHEAD_TARGET_MS = 5;
const APPEND_GROWTH_LIMIT = 1.5;
const MEMORY_SLOPE_TOLERANCE = 0.25;
const EMBED_MAX_DROP = 1;
const MARKDOWN_CHUNK = 'rich-reply';
/** A reply of 250 tokens (max_tokens), one piece each, as a provider streams them, 4 ms apart. */
const WORDS = {
  pieces: Array.from({ length: 250 }, (_, i) => `word${i} `),
  pieceDelayMs: 4,
  replies: 5,
  cpuSlowdown: 1,
};
/** The Markdown case: 2,000 characters in 250 pieces, 10 ms apart, at 4× CPU slowdown. */
const MARKDOWN = { pieces: streamedMarkdownReply().pieces, pieceDelayMs: 10, replies: 1, cpuSlowdown: 4 };

const step = (message: string) => console.log(`[bench] ${message}`);
const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
const ratio = (app: number, baseline: number) =>
  Number.isFinite(app) && Number.isFinite(baseline) && baseline > 0 ? `${(app / baseline).toFixed(2)}×` : '—';
const int = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

async function main() {
  const runs = runsFlag();
  const started = performance.now();
  const loadBefore = loadavg();
  // Throws with install advice when there is no Chromium; Lighthouse needs a path, Playwright's own if need be.
  const chromiumPath = chromiumExecutable() ?? playwrightChromium.executablePath();
  step('building the app (client with its size budget, then the server)');
  const sizes = await buildAll();
  const closers: (() => Promise<unknown>)[] = [];
  const closeAll = () => Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
  // Ctrl-C must not leave a server or a browser behind.
  process.once('SIGINT', () => void closeAll().then(() => process.exit(130)));
  try {
    const provider = await startFakeProvider();
    closers.push(() => provider.close());
    const server = await startServer(provider.baseURL);
    closers.push(() => server.close());
    const pages = { app: `${server.url}/`, baseline: `${server.url}${BASELINE_PATH}` };
    const both = async <T>(measure: (url: string) => Promise<T>) => ({
      app: await measure(pages.app),
      baseline: await measure(pages.baseline),
    });
    const browser = await launchBrowser();
    closers.push(() => browser.close());

    step('start-up: 3 loads of each page');
    const startup = await both((url) => measureStartup(browser, url, sizes, 3));
    step('per-message overhead: 30 sends on each page');
    const overhead = await both((url) => measureOverhead(browser, url, 3, 30));
    step('streaming: 5 replies of 250 pieces on each page');
    const markdownChunk = MARKDOWN_CHUNK;
    const streaming = await both((url) =>
      streamProbe(browser, url, provider, { ...WORDS, markdownChunk, markdown: true }),
    );
    step(`long conversations: appends at ${LIST_SIZES.join(', ')} messages`);
    const lists = await both((url) => measureListSizes(browser, url, provider, LIST_SIZES, 15));
    step('Markdown: a 2,000-character reply in 250 pieces at 4× CPU slowdown, as Markdown and as plain text');
    const markdown = {
      markdown: await streamProbe(browser, pages.app, provider, { ...MARKDOWN, markdownChunk, markdown: true }),
      plain: await streamProbe(browser, pages.app, provider, { ...MARKDOWN, markdownChunk, markdown: false }),
    };
    await browser.close();

    step(`Lighthouse: ${runs} run(s) per page and form factor, median kept`);
    const chromium = await startDebugChromium(chromiumPath);
    closers.push(async () => chromium.kill());
    const site = await startHostSite();
    closers.push(() => site.close());
    const appOrigin = new URL(server.url).origin;
    const hostPages = {
      without: site.page('/without', hostPageHtml({ appOrigin, snippet: false })),
      with: site.page('/with', hostPageHtml({ appOrigin })),
    };
    const lighthouse = { mobile: {}, desktop: {} } as Record<'mobile' | 'desktop', Record<string, LighthouseFigures>>;
    for (const formFactor of ['mobile', 'desktop'] as const) {
      for (const [name, url] of Object.entries({ ...pages, ...hostPages })) {
        lighthouse[formFactor][name] = await runLighthouse(url, chromium.port, formFactor, runs);
      }
    }

    const markdownBytes = [...sizes].find(([path]) => path.startsWith(`assets/${MARKDOWN_CHUNK}-`))?.[1] ?? Number.NaN;
    const tables = [
      appTable({ startup, overhead, streaming, lists, lighthouse }),
      markdownTable(
        ['Figure', 'As Markdown', 'As plain text', 'Target', 'Met'],
        markdownRows(markdownBytes, LAZY_BUDGETS_BYTES[MARKDOWN_CHUNK], markdown.markdown, markdown.plain),
      ),
      embedTable(lighthouse),
    ];
    const commit = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain') ? ' (with uncommitted changes)' : ''}`;
    const context =
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC at ${commit}; ` +
      `${execFileSync(chromiumPath, ['--version'], { encoding: 'utf8' }).trim()}, ${machineLine(loadBefore)}; ` +
      `Lighthouse ${runs} run(s) each, median; run took ${Math.round((performance.now() - started) / 1000)} s.`;
    const text = [tables[0], context, '### Markdown replies', tables[1], '### Embed snippet on a host page', tables[2]];
    console.log(`\n${text.join('\n\n')}\n`);
    await writeResults('bench', text.join('\n\n'), { startup, overhead, streaming, lists, markdown, lighthouse });
  } finally {
    await closeAll();
  }
}

interface AppFigures {
  startup: { app: Awaited<ReturnType<typeof measureStartup>>; baseline: Awaited<ReturnType<typeof measureStartup>> };
  overhead: { app: Awaited<ReturnType<typeof measureOverhead>>; baseline: Awaited<ReturnType<typeof measureOverhead>> };
  streaming: { app: StreamFigures; baseline: StreamFigures };
  lists: { app: ListSizeFigures[]; baseline: ListSizeFigures[] };
  lighthouse: Record<'mobile' | 'desktop', Record<string, LighthouseFigures>>;
}

/** Heap bytes per message between two list sizes. */
function slope(lists: ListSizeFigures[], from: number, to: number) {
  const a = lists.find((figures) => figures.messages >= from);
  const b = lists.findLast((figures) => figures.messages <= to);
  return a && b && b.messages > a.messages ? (b.heapBytes - a.heapBytes) / (b.messages - a.messages) : Number.NaN;
}

/** The app against the baseline: figure, app, baseline, ratio, target, met. */
function appTable({ startup, overhead, streaming, lists, lighthouse }: AppFigures): string {
  const pair = <T>(of: { app: T; baseline: T }, pick: (figures: T) => number, format = ms) => {
    const [app, baseline] = [pick(of.app), pick(of.baseline)];
    return [format(app), format(baseline), ratio(app, baseline)];
  };
  const lh = (formFactor: 'mobile' | 'desktop') => ({
    app: lighthouse[formFactor].app,
    baseline: lighthouse[formFactor].baseline,
  });
  const [mobile, desktop] = [lh('mobile'), lh('desktop')];
  const cls = (figures: { app: LighthouseFigures; baseline: LighthouseFigures }) => [
    figures.app.cls.toFixed(3),
    figures.baseline.cls.toFixed(3),
    '—',
    '0',
    met(figures.app.cls === 0),
  ];
  const score = (
    label: string,
    of: typeof mobile,
    key: 'performance' | 'accessibility' | 'bestPractices',
    min: number,
  ) => [label, ...pair(of, (f) => f[key], int), min === 100 ? '100' : `≥ ${min}`, met(of.app[key] >= min)];
  const append10 = lists.app[0].appendMs;
  const slopes = [slope(lists.app, 10, 1000), slope(lists.app, 1000, 2000)];
  const proportional = slopes[0] > 0 && Math.abs(slopes[1] - slopes[0]) <= MEMORY_SLOPE_TOLERANCE * Math.max(...slopes);
  const last = lists.app[lists.app.length - 1];
  const overheadTarget = `≤ baseline + ${OVERHEAD_TARGET_MS} ms`;
  const added = (key: 'enterToRequestMs' | 'firstByteToDomMs') =>
    met(overhead.app[key] - overhead.baseline[key] <= OVERHEAD_TARGET_MS);
  const rows = [
    [
      'Start-up JS (entry + static imports), gzip -9',
      ...pair(startup, (f) => f.startUpGzipBytes, kb),
      `≤ ${kb(START_UP_BUDGET_BYTES)}`,
      met(startup.app.startUpGzipBytes <= START_UP_BUDGET_BYTES),
    ],
    ['Start-up JS as served (brotli)', ...pair(startup, (f) => f.startUpWireBytes, kb), '', ''],
    [
      'JS loaded later (prefetched when idle), gzip -9',
      kb(startup.app.lazyGzipBytes),
      kb(startup.baseline.lazyGzipBytes),
      '—',
      '',
      '',
    ],
    ['First contentful paint (no throttling)', ...pair(startup, (f) => f.fcpMs), '', ''],
    ['Card accepts typing (no throttling)', ...pair(startup, (f) => f.readyMs), '', ''],
    score('Lighthouse mobile: performance', mobile, 'performance', 95),
    ['Lighthouse mobile: first contentful paint', ...pair(mobile, (f) => f.fcpMs), '', ''],
    ['Lighthouse mobile: largest contentful paint', ...pair(mobile, (f) => f.lcpMs), '', ''],
    ['Lighthouse mobile: total blocking time', ...pair(mobile, (f) => f.tbtMs), '', ''],
    ['Lighthouse mobile: cumulative layout shift', ...cls(mobile)],
    score('Lighthouse mobile: accessibility', mobile, 'accessibility', 100),
    score('Lighthouse mobile: best practices', mobile, 'bestPractices', 100),
    score('Lighthouse desktop: performance', desktop, 'performance', 100),
    ['Lighthouse desktop: total blocking time', ...pair(desktop, (f) => f.tbtMs), '', ''],
    ['Lighthouse desktop: cumulative layout shift', ...cls(desktop)],
    ...lists.app.map((app, index) => {
      const long = app.messages >= 1000;
      return [
        `Append one message at ${app.messages} messages (submit → painted)`,
        ...pair({ app, baseline: lists.baseline[index] }, (f) => f?.appendMs ?? Number.NaN),
        long ? `≤ ${APPEND_GROWTH_LIMIT}× the 10-message cost` : '',
        long ? met(app.appendMs / append10 <= APPEND_GROWTH_LIMIT) : '',
      ];
    }),
    [
      'Message rows rendered per append (worst, all sizes)',
      int(Math.max(...lists.app.map((f) => f.maxRenderedRows ?? Number.NaN))),
      'n/a (no React)',
      '—',
      '1 (the new one)',
      met(lists.app.every((f) => f.maxRenderedRows === 1 && f.maxAddedRows === 1)),
    ],
    [
      // The app shows a typing indicator while the reply is awaited (the plain page has none): one more node, no more.
      'Other DOM changes in the list per append (worst)',
      ...[lists.app, lists.baseline].map((list) => int(Math.max(...list.map((f) => f.maxOtherMutations)))),
      '—',
      '≤ 1 (the typing indicator)',
      met(lists.app.every((f) => f.maxOtherMutations <= 1)),
    ],
    ...[
      [10, 1000],
      [1000, 2000],
    ].map(([from, to]) => [
      `Heap per message, JS + DOM, ${from} → ${to} messages`,
      ...pair(
        lists,
        (list) => slope(list, from, to),
        (bytes) => `${int(bytes)} B`,
      ),
      to === 2000 ? `within ${MEMORY_SLOPE_TOLERANCE * 100}% of the line above` : '',
      to === 2000 ? met(proportional) : '',
    ]),
    ['Message text per message (for scale)', ...Array(2).fill(`${int(last.textChars / last.messages)} B`), '—', '', ''],
    [
      'Enter → request leaves the page (median)',
      ...pair(overhead, (f) => f.enterToRequestMs),
      overheadTarget,
      added('enterToRequestMs'),
    ],
    ['Enter → first piece of the reply painted (median)', ...pair(overhead, (f) => f.enterToFirstPaintMs), '', ''],
    [
      'First byte of the response → first piece in the DOM (median)',
      ...pair(overhead, (f) => f.firstByteToDomMs),
      overheadTarget,
      added('firstByteToDomMs'),
    ],
    ['Main-thread time per streamed piece (250-piece reply, median)', ...pair(streaming, (f) => f.msPerPiece), '', ''],
  ];
  return markdownTable(['Figure', 'App', 'Baseline', 'App ÷ baseline', 'Target', 'Met'], rows);
}

function markdownRows(chunkBytes: number, budget: number, markdown: StreamFigures, plain: StreamFigures) {
  const longest = (figures: StreamFigures) =>
    figures.longTasks.length ? `${Math.max(...figures.longTasks)} ms` : 'none';
  const cost = (label: string, pick: (figures: StreamFigures) => number) => [
    label,
    ms(pick(markdown), 0),
    ms(pick(plain), 0),
    '',
    '',
  ];
  return [
    ['Markdown chunk (lazy), gzip -9', kb(chunkBytes), '—', `≤ ${kb(budget)}`, met(chunkBytes <= budget)],
    cost('Streaming 2,000 chars in 250 pieces at 4× CPU: main-thread time', (f) => f.taskMs),
    cost('… of it script', (f) => f.scriptMs),
    cost('… of it style and layout', (f) => f.styleAndLayoutMs),
    ['… longest task over 50 ms', longest(markdown), longest(plain), 'none', met(markdown.longTasks.length === 0)],
  ];
}

/** What the snippet costs a host page: at most `EMBED_MAX_DROP` point of any Lighthouse score. */
function embedTable(lighthouse: AppFigures['lighthouse']): string {
  const rows = (['mobile', 'desktop'] as const).flatMap((formFactor) => {
    const { without, with: withSnippet } = lighthouse[formFactor];
    const scores = (['performance', 'accessibility', 'bestPractices', 'seo'] as const).map((key) => [
      `${formFactor}: ${key}`,
      without[key],
      withSnippet[key],
      `drop ≤ ${EMBED_MAX_DROP}`,
      met(without[key] - withSnippet[key] <= EMBED_MAX_DROP),
    ]);
    const metric = (label: string, key: 'lcpMs' | 'tbtMs' | 'cls') => [
      `${formFactor}: ${label}`,
      ...[without, withSnippet].map((f) => (key === 'cls' ? f.cls.toFixed(3) : ms(f[key], 0))),
      '',
      '',
    ];
    return [
      ...scores,
      metric('cumulative layout shift', 'cls'),
      metric('largest contentful paint', 'lcpMs'),
      metric('total blocking time', 'tbtMs'),
    ];
  });
  return markdownTable(['Lighthouse, median', 'Without the snippet', 'With it', 'Target', 'Met'], rows);
}

main().catch((error: unknown) => {
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
