import { readFileSync } from 'node:fs';
import { type Browser, type CDPSession, chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../testing/chromium.ts';
import type { FakeProvider } from '../testing/fake-provider.ts';
import { median, quantile } from './stats.ts';

const INSTRUMENT = readFileSync(new URL('./page/instrument.js', import.meta.url), 'utf8');
const INPUT = 'input[aria-label="Message"]';
/** A phone-sized window: the widget's hardest case. */
const VIEWPORT = { width: 412, height: 823 };

const USER_TEXT = 'How long does the delivery take to Lisbon, and can I change the address after ordering?';
const REPLY_TEXT =
  'Delivery to Lisbon usually takes two to four working days. You can change the address until the parcel ' +
  'leaves the warehouse: open the order, choose "Change address" and confirm. After dispatch, contact the carrier.';
const INSTANT = { content: REPLY_TEXT };
// While an append is timed, the reply must not land in the same frame: it waits this long.
const SLOW = { content: REPLY_TEXT, delayMs: 60 };

export const launchBrowser = () => chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });

interface OpenPage {
  page: Page;
  cdp: CDPSession;
  /** `page.evaluate(expression)`, failing instead of hanging when the page never answers. */
  run<T>(expression: string, timeoutMs?: number): Promise<T>;
  /** Closes the page; throws if it reported an error meanwhile, which would make its figures suspect. */
  close(): Promise<void>;
}

/** A fresh context (empty cache) with the instrumentation, on `url`, once the card accepts typing and loads no more. */
async function openPage(browser: Browser, url: string, blockChunk?: string): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const errors: string[] = [];
  const close = async () => {
    await context.close();
    if (errors.length > 0) throw new Error(`The page ${url} reported errors:\n  ${errors.join('\n  ')}`);
  };
  try {
    await context.addInitScript({ content: INSTRUMENT });
    // A chunk kept away is a failed download the page reports and copes with: that error is expected.
    if (blockChunk) await context.route(new RegExp(`/assets/${blockChunk}-`), (route) => route.abort());
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !blockChunk) errors.push(message.text());
    });
    const run = async <T>(expression: string, timeoutMs = 60_000): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`No answer in ${timeoutMs} ms from ${url} to ${expression}`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([page.evaluate(expression) as Promise<T>, timeout]);
      } finally {
        clearTimeout(timer);
      }
    };
    await page.goto(url);
    await run('window.__bench.whenReady()');
    // The app fetches its lazy chunks when idle: a visitor who reads the card first never waits for them.
    await page.waitForLoadState('networkidle');
    return { page, cdp: await context.newCDPSession(page), run, close };
  } catch (error) {
    await context.close();
    throw error;
  }
}

// --- start-up: which JavaScript loads before the card accepts typing, and how big the build says it is ---

export interface StartupFigures {
  /** Each script the page loaded: gzip -9 bytes (from the build's report), bytes as served, before the card was ready. */
  scripts: { path: string; gzipBytes: number; wireBytes: number; startUp: boolean }[];
  startUpGzipBytes: number;
  startUpWireBytes: number;
  lazyGzipBytes: number;
  /** Medians over the loads, on loopback without throttling. */
  fcpMs: number;
  readyMs: number;
}

/** `gzipBytes` gives each script's size by its path in the build (`assets/…js`), as the build reported it. */
export async function measureStartup(browser: Browser, url: string, gzipBytes: Map<string, number>, loads: number) {
  const fcps: number[] = [];
  const readies: number[] = [];
  let scripts: StartupFigures['scripts'] = [];
  for (let load = 0; load < loads; load += 1) {
    const open = await openPage(browser, url);
    const sample = await open.run<{
      ready: number;
      domContentLoaded: number;
      fcp: number | null;
      resources: { name: string; startTime: number; encodedBodySize: number }[];
    }>(`({
      ready: window.__bench.state.ready,
      domContentLoaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventStart,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
      resources: performance.getEntriesByType('resource').map(({ name, startTime, encodedBodySize }) => ({ name, startTime, encodedBodySize })),
    })`);
    await open.close();
    readies.push(sample.ready);
    if (sample.fcp !== null) fcps.push(sample.fcp);
    // Scripts requested before the card accepted typing (or before the page's scripts ran) are on the critical path.
    const criticalUntil = Math.max(sample.ready, sample.domContentLoaded);
    scripts = sample.resources
      .map((entry) => ({ ...entry, path: new URL(entry.name).pathname.slice(1) }))
      .filter((entry) => entry.path.endsWith('.js'))
      .map((entry) => {
        const size = gzipBytes.get(entry.path);
        if (size === undefined) throw new Error(`The build reported no size for ${entry.path}`);
        return {
          path: entry.path,
          gzipBytes: size,
          wireBytes: entry.encodedBodySize,
          startUp: entry.startTime <= criticalUntil,
        };
      });
  }
  const sum = (startUp: boolean, key: 'gzipBytes' | 'wireBytes') =>
    scripts.filter((script) => script.startUp === startUp).reduce((total, script) => total + script[key], 0);
  return {
    scripts,
    startUpGzipBytes: sum(true, 'gzipBytes'),
    startUpWireBytes: sum(true, 'wireBytes'),
    lazyGzipBytes: sum(false, 'gzipBytes'),
    fcpMs: median(fcps),
    readyMs: median(readies),
  } satisfies StartupFigures;
}

// --- long conversations: the cost of one more message, and memory, at each list size ---

/** What one measured append did, as the page saw it (see `measureAppend` in page/instrument.js). */
interface AppendSample {
  ms: number;
  addedRows: number;
  removedRows: number;
  otherMutations: number;
  /** Message rows React rendered (the new one included); null on a page without React. */
  renderedRows: number | null;
}

export interface ListSizeFigures {
  messages: number;
  /** Median time from the submit to the end of the frame that shows the new message (script, style, layout, paint). */
  appendMs: number;
  appendP90Ms: number;
  /** Worst case over the samples: rows React rendered per append, rows added to the log, other changes in the log. */
  maxRenderedRows: number | null;
  maxAddedRows: number;
  maxOtherMutations: number;
  /** After garbage collection: the JavaScript heap plus Blink's (DOM) heap. */
  heapBytes: number;
  /** Characters of message text in the list (ASCII here: one byte each in the JavaScript heap). */
  textChars: number;
}

export async function measureListSizes(
  browser: Browser,
  url: string,
  provider: FakeProvider,
  sizes: readonly number[],
  samplesPerSize: number,
): Promise<ListSizeFigures[]> {
  const open = await openPage(browser, url);
  try {
    await open.cdp.send('HeapProfiler.enable');
    const figures: ListSizeFigures[] = [];
    for (const size of sizes) {
      provider.respondWith(INSTANT);
      // A thousand round trips through the server take a while on a busy machine.
      await open.run(`window.__bench.fillTo(${size}, ${JSON.stringify(USER_TEXT)})`, 600_000);
      for (let pass = 0; pass < 3; pass += 1) await open.cdp.send('HeapProfiler.collectGarbage');
      const heap = (await open.cdp.send('Runtime.getHeapUsage')) as { usedSize: number; embedderHeapUsedSize?: number };
      const text = await open.run<{ messages: number; textChars: number }>('window.__bench.textStats()');

      provider.respondWith(SLOW);
      const samples: AppendSample[] = [];
      // The first append after a thousand quick ones meets a garbage collection more often than not: not counted.
      for (let sample = -1; sample < samplesPerSize; sample += 1) {
        const timed = await open.run<AppendSample>(
          `window.__bench.measureAppend(${JSON.stringify(`${USER_TEXT} (timed append)`)})`,
        );
        if (sample >= 0) samples.push(timed);
      }
      await open.run('window.__bench.idle()');
      const rendered = samples.flatMap((sample) => (sample.renderedRows === null ? [] : [sample.renderedRows]));
      const times = samples.map((sample) => sample.ms);
      figures.push({
        messages: text.messages,
        appendMs: median(times),
        appendP90Ms: quantile(times, 0.9),
        maxRenderedRows: rendered.length > 0 ? Math.max(...rendered) : null,
        maxAddedRows: Math.max(...samples.map((sample) => sample.addedRows)),
        maxOtherMutations: Math.max(...samples.map((sample) => sample.otherMutations + sample.removedRows)),
        heapBytes: heap.usedSize + (heap.embedderHeapUsedSize ?? Number.NaN),
        textChars: text.textChars,
      });
    }
    return figures;
  } finally {
    provider.respondWith(INSTANT);
    await open.close();
  }
}

// --- per-message overhead against a provider that answers at once ---

export interface OverheadFigures {
  /** Medians in ms: Enter → the request leaves; Enter → the end of the frame that first paints a piece of the reply. */
  enterToRequestMs: number;
  enterToFirstPaintMs: number;
  /** From the response's first byte to the reply's bubble in the DOM: the page's own work on the first piece. */
  firstByteToDomMs: number;
  /** The loopback round trip through the production server to the fake provider: not the page's doing. */
  requestToFirstByteMs: number;
}

/** Types and presses Enter like a visitor (Playwright's keyboard), `sends` times after `warmUp` unmeasured sends. */
export async function measureOverhead(browser: Browser, url: string, warmUp: number, sends: number) {
  const open = await openPage(browser, url);
  const samples: Record<keyof OverheadFigures, number | null>[] = [];
  for (let send = 0; send < warmUp + sends; send += 1) {
    await open.run('window.__bench.idle()');
    await open.run('window.__bench.armSend()');
    await open.page.fill(INPUT, `${USER_TEXT} (send ${send + 1})`);
    await open.page.press(INPUT, 'Enter');
    // Ask for the figures only once the exchange is over: the protocol traffic of a call into the page would land on
    // its main thread while the reply is being handled, and be counted against the page.
    await open.page.waitForTimeout(150);
    const sample = await open.run<Record<keyof OverheadFigures, number | null>>('window.__bench.sendResult()');
    if (send >= warmUp) samples.push(sample);
  }
  await open.close();
  const mid = (key: keyof OverheadFigures) => median(samples.map((sample) => sample[key] ?? Number.NaN));
  return {
    enterToRequestMs: mid('enterToRequestMs'),
    enterToFirstPaintMs: mid('enterToFirstPaintMs'),
    firstByteToDomMs: mid('firstByteToDomMs'),
    requestToFirstByteMs: mid('requestToFirstByteMs'),
  } satisfies OverheadFigures;
}

// --- the one streaming probe: what a streamed reply costs the main thread ---

export interface StreamOptions {
  pieces: string[];
  pieceDelayMs: number;
  /** Measured replies, after one unmeasured warm-up reply; figures are medians over them. */
  replies: number;
  /** Chromium's CPU throttling rate while the replies stream (1: none). */
  cpuSlowdown: number;
  /** The app's Markdown chunk, by name: `markdown: false` keeps it away, so replies show as plain text. */
  markdownChunk: string;
  markdown: boolean;
}

export interface StreamFigures {
  /** Chromium's own counters over a whole reply, in ms: every task, and of it script, and style and layout. */
  taskMs: number;
  scriptMs: number;
  styleAndLayoutMs: number;
  msPerPiece: number;
  /** Tasks over 50 ms (the `longtask` entries) in any measured reply, in ms. */
  longTasks: number[];
}

/**
 * Streams `replies` replies of `pieces` into the page and reads the main thread's work from Chromium's counters. The
 * page is left alone meanwhile (no polling until the stream's own time has passed), so the figures are its own.
 */
export async function streamProbe(browser: Browser, url: string, provider: FakeProvider, options: StreamOptions) {
  const open = await openPage(browser, url, options.markdown ? undefined : options.markdownChunk);
  const { page, cdp, run } = open;
  const exchange = async (text: string) => {
    const before = await run<number>('window.__bench.messageCount()');
    await page.fill(INPUT, text);
    await page.press(INPUT, 'Enter');
    await page.waitForTimeout(options.pieces.length * options.pieceDelayMs);
    while (!(await run<boolean>('window.__bench.isIdle()'))) await page.waitForTimeout(100);
    if ((await run<number>('window.__bench.messageCount()')) !== before + 2) throw new Error(`${url}: no reply came`);
  };
  try {
    // A first reply loads the renderer (or finds it kept away) and runs it once.
    provider.respondWith({ content: 'Warm **up**.' });
    await exchange('Warm up');
    if (options.markdown) await run(`window.__bench.until(() => document.querySelector('[data-sender="bot"] strong'))`);
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
      const after = await counters();
      samples.push(after.map((value, index) => value - before[index]));
      longTasks.push(...(await run<number[]>('window.__bench.takeLongTasks()')));
    }
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    const [taskMs, scriptMs, styleAndLayoutMs] = [0, 1, 2].map((index) => median(samples.map((s) => s[index])));
    return {
      taskMs,
      scriptMs,
      styleAndLayoutMs,
      msPerPiece: taskMs / options.pieces.length,
      longTasks,
    } satisfies StreamFigures;
  } finally {
    provider.respondWith(INSTANT);
    await open.close();
  }
}
