import { readFileSync } from 'node:fs';
import { type Browser, chromium } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../testing/chromium.ts';
import type { FakeProvider } from '../testing/fake-provider.ts';
import { median } from './table.ts';

const INSTRUMENT = readFileSync(new URL('./page/instrument.js', import.meta.url), 'utf8');
const INPUT = 'input[aria-label="Message"]';
const USER_TEXT = 'How long does the delivery take to Lisbon, and can I change the address after ordering?';
const INSTANT = {
  content:
    'Delivery to Lisbon usually takes two to four working days. You can change the address until the parcel ' +
    'leaves the warehouse: open the order, choose "Change address" and confirm. After dispatch, contact the carrier.',
};
// While an append is timed, the reply must not land in the same frame: it waits this long.
const SLOW = { ...INSTANT, delayMs: 60 };

export const launchBrowser = () => chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });

/**
 * A fresh context (empty cache) with the instrumentation (page/instrument.js), on `url`, once the card accepts typing
 * and the page has fetched what it fetches when idle. `close()` throws if the page reported an error meanwhile: its
 * figures would be suspect. `blockChunk` keeps a lazy chunk away (a failed download the page reports and copes with).
 */
async function openPage(browser: Browser, url: string, blockChunk?: string) {
  // A phone-sized window: the widget's hardest case.
  const context = await browser.newContext({ viewport: { width: 412, height: 823 } });
  const errors: string[] = [];
  await context.addInitScript({ content: INSTRUMENT });
  if (blockChunk) await context.route(new RegExp(`/assets/${blockChunk}-`), (route) => route.abort());
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !blockChunk) errors.push(message.text());
  });
  /** `page.evaluate(expression)`, failing instead of hanging when the page never answers. */
  const run = async <T>(expression: string, timeoutMs = 60_000): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${url} did not answer ${expression} in ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([page.evaluate(expression) as Promise<T>, timeout]).finally(() => clearTimeout(timer));
  };
  const close = async () => {
    await context.close();
    if (errors.length > 0) throw new Error(`The page ${url} reported errors:\n  ${errors.join('\n  ')}`);
  };
  try {
    await page.goto(url);
    await run('window.__bench.whenReady()');
    await page.waitForLoadState('networkidle');
    return { page, cdp: await context.newCDPSession(page), run, close };
  } catch (error) {
    await context.close();
    throw error;
  }
}

type Script = { path: string; startTime: number; wireBytes: number };

/**
 * Start-up over `loads` fresh loads: the scripts requested before the card accepted typing (or before the page's
 * scripts ran), with their gzip -9 size from the build's report (`gzipBytes`, by path) and their size as served, the
 * scripts fetched later, and the medians of first contentful paint and of the card accepting typing.
 */
export async function measureStartup(browser: Browser, url: string, gzipBytes: Map<string, number>, loads: number) {
  const [fcps, readies]: number[][] = [[], []];
  let scripts: (Script & { gzipBytes: number; startUp: boolean })[] = [];
  for (let load = 0; load < loads; load += 1) {
    const open = await openPage(browser, url);
    const sample = await open.run<{ ready: number; loaded: number; fcp?: number; scripts: Script[] }>(`({
      ready: window.__bench.state.ready,
      loaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventStart,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      scripts: performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('.js')).map((entry) =>
        ({ path: new URL(entry.name).pathname.slice(1), startTime: entry.startTime, wireBytes: entry.encodedBodySize })),
    })`);
    await open.close();
    readies.push(sample.ready);
    if (sample.fcp !== undefined) fcps.push(sample.fcp);
    scripts = sample.scripts.map((script) => {
      const size = gzipBytes.get(script.path);
      if (size === undefined) throw new Error(`The build reported no size for ${script.path}`);
      return { ...script, gzipBytes: size, startUp: script.startTime <= Math.max(sample.ready, sample.loaded) };
    });
  }
  const sum = (startUp: boolean, key: 'gzipBytes' | 'wireBytes') =>
    scripts.filter((script) => script.startUp === startUp).reduce((total, script) => total + script[key], 0);
  const [fcpMs, readyMs] = [median(fcps), median(readies)];
  const [startUpGzipBytes, startUpWireBytes, lazyGzipBytes] = [
    sum(true, 'gzipBytes'),
    sum(true, 'wireBytes'),
    sum(false, 'gzipBytes'),
  ];
  return { scripts, startUpGzipBytes, startUpWireBytes, lazyGzipBytes, fcpMs, readyMs };
}

/** What one timed append did, as the page saw it (see `measureAppend` in page/instrument.js). */
type Append = { ms: number; addedRows: number; otherMutations: number; renderedRows: number | null };

/**
 * Long conversations: at each list size, the median time from a submit to the end of the frame that shows the new
 * message (over `samples` appends), the worst rows React rendered, rows added and other changes in the log per
 * append, and the JavaScript plus Blink (DOM) heap after garbage collection.
 */
export async function measureListSizes(
  browser: Browser,
  url: string,
  provider: FakeProvider,
  sizes: number[],
  samples: number,
) {
  const open = await openPage(browser, url);
  const figures = [];
  for (const size of sizes) {
    provider.respondWith(INSTANT);
    // A thousand round trips through the server take a while on a busy machine.
    await open.run(`window.__bench.fillTo(${size}, ${JSON.stringify(USER_TEXT)})`, 600_000);
    for (let pass = 0; pass < 3; pass += 1) await open.cdp.send('HeapProfiler.collectGarbage');
    const heap = (await open.cdp.send('Runtime.getHeapUsage')) as { usedSize: number; embedderHeapUsedSize?: number };
    const text = await open.run<{ messages: number; textChars: number }>('window.__bench.textStats()');
    provider.respondWith(SLOW);
    const appends: Append[] = [];
    // The first append after a thousand quick ones meets a garbage collection more often than not: not counted.
    for (let sample = -1; sample < samples; sample += 1) {
      const append = await open.run<Append>(`window.__bench.measureAppend(${JSON.stringify(`${USER_TEXT} (timed)`)})`);
      if (sample >= 0) appends.push(append);
    }
    await open.run('window.__bench.idle()');
    const worst = (pick: (append: Append) => number | null) => Math.max(...appends.map((a) => pick(a) ?? Number.NaN));
    figures.push({
      ...text,
      appendMs: median(appends.map((append) => append.ms)),
      maxRenderedRows: appends[0].renderedRows === null ? null : worst((append) => append.renderedRows),
      maxAddedRows: worst((append) => append.addedRows),
      maxOtherMutations: worst((append) => append.otherMutations),
      heapBytes: heap.usedSize + (heap.embedderHeapUsedSize ?? Number.NaN),
    });
  }
  provider.respondWith(INSTANT);
  await open.close();
  return figures;
}

export type ListSizeFigures = Awaited<ReturnType<typeof measureListSizes>>[number];

/**
 * Per-message overhead against a provider that answers at once, as medians over `sends` messages typed and sent with
 * Enter like a visitor (Playwright's keyboard), after `warmUp` unmeasured ones: Enter → the request leaves, Enter →
 * the end of the frame that first paints a piece of the reply, the response's first byte → the bubble in the DOM.
 */
export async function measureOverhead(browser: Browser, url: string, warmUp: number, sends: number) {
  const open = await openPage(browser, url);
  const samples: Record<string, number | null>[] = [];
  for (let send = 0; send < warmUp + sends; send += 1) {
    await open.run('window.__bench.armSend()');
    await open.page.fill(INPUT, `${USER_TEXT} (send ${send + 1})`);
    await open.page.press(INPUT, 'Enter');
    // Ask for the figures only once the exchange is over: the protocol traffic of a call into the page would land on
    // its main thread while the reply is being handled, and be counted against the page.
    await open.page.waitForTimeout(150);
    const sample = await open.run<Record<string, number | null>>('window.__bench.sendResult()');
    if (send >= warmUp) samples.push(sample);
  }
  await open.close();
  const mid = (key: string) => median(samples.map((sample) => sample[key] ?? Number.NaN));
  return {
    enterToRequestMs: mid('enterToRequestMs'),
    enterToFirstPaintMs: mid('enterToFirstPaintMs'),
    firstByteToDomMs: mid('firstByteToDomMs'),
  };
}

export type OverheadFigures = Awaited<ReturnType<typeof measureOverhead>>;

/**
 * The one streaming probe: streams `replies` replies of `pieces` (after one unmeasured warm-up reply) at a CPU
 * slowdown, and reads the main thread's work from Chromium's own counters: every task, and of it script, and style
 * and layout (medians, in ms), and any task over 50 ms. The page is left alone until the stream's own time has
 * passed (no polling meanwhile), so the figures are its own. `markdown: false` keeps the app's Markdown chunk away,
 * so that replies show as plain text.
 */
export async function streamProbe(
  browser: Browser,
  url: string,
  provider: FakeProvider,
  options: { pieces: string[]; pieceDelayMs: number; replies: number; cpuSlowdown: number },
  markdown: { chunk: string; render: boolean },
) {
  const { page, cdp, run, close } = await openPage(browser, url, markdown.render ? undefined : markdown.chunk);
  const exchange = async (text: string) => {
    const before = await run<number>('window.__bench.messageCount()');
    await page.fill(INPUT, text);
    await page.press(INPUT, 'Enter');
    await page.waitForTimeout(options.pieces.length * options.pieceDelayMs);
    while (!(await run<boolean>('window.__bench.isIdle()'))) await page.waitForTimeout(100);
    if ((await run<number>('window.__bench.messageCount()')) !== before + 2) throw new Error(`${url}: no reply came`);
  };
  // A first reply loads the renderer (or finds it kept away) and runs it once.
  provider.respondWith({ content: 'Warm **up**.' });
  await exchange('Warm up');
  if (markdown.render) await run(`window.__bench.until(() => document.querySelector('[data-sender="bot"] strong'))`);
  await cdp.send('Performance.enable');
  const counters = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const value = (name: string) => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1000;
    return [value('TaskDuration'), value('ScriptDuration'), value('RecalcStyleDuration') + value('LayoutDuration')];
  };
  provider.respondWith({ stream: options.pieces, pieceDelayMs: options.pieceDelayMs });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: options.cpuSlowdown });
  const samples: number[][] = [];
  const longTasks: number[] = [];
  for (let reply = 0; reply < options.replies; reply += 1) {
    await run('window.__bench.takeLongTasks()');
    const before = await counters();
    await exchange(`${USER_TEXT} (reply ${reply + 1})`);
    samples.push((await counters()).map((value, index) => value - before[index]));
    longTasks.push(...(await run<number[]>('window.__bench.takeLongTasks()')));
  }
  provider.respondWith(INSTANT);
  await close();
  const [taskMs, scriptMs, styleAndLayoutMs] = [0, 1, 2].map((index) => median(samples.map((s) => s[index])));
  return { taskMs, scriptMs, styleAndLayoutMs, msPerPiece: taskMs / options.pieces.length, longTasks };
}

export type StreamFigures = Awaited<ReturnType<typeof streamProbe>>;
