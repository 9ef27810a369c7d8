import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../testing/chromium.ts';
import { median, quantile } from './stats.ts';

const INSTRUMENT = readFileSync(new URL('./page/instrument.js', import.meta.url), 'utf8');
const INPUT = 'input[aria-label="Message"]';

/** A phone-sized window: the widget's hardest case. */
const VIEWPORT = { width: 412, height: 823 };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });
}

interface OpenPage {
  page: Page;
  cdp: CDPSession;
  /** Uncaught exceptions and console errors: any of them makes the figures suspect, so the run fails. */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh context (empty cache) with the instrumentation, on `url`, once the card accepts typing. */
async function openPage(browser: Browser, url: string): Promise<OpenPage> {
  const context: BrowserContext = await browser.newContext({ viewport: VIEWPORT });
  try {
    await context.addInitScript({ content: INSTRUMENT });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(url);
    await inPage(page, 'window.__bench.whenReady()');
    const cdp = await context.newCDPSession(page);
    return { page, cdp, errors, close: () => context.close() };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/** `page.evaluate(expression)`, failing instead of hanging when the page never answers. */
async function inPage<T>(page: Page, expression: string, timeoutMs = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`No answer from the page in ${timeoutMs} ms to: ${expression}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([page.evaluate(expression) as Promise<T>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function assertNoErrors(open: OpenPage, url: string) {
  if (open.errors.length > 0) throw new Error(`The page ${url} reported errors:\n  ${open.errors.join('\n  ')}`);
}

// --- start-up: which JavaScript loads before the card accepts typing, and how big it is ---

export interface ScriptLoad {
  path: string;
  /** Deterministic size: gzip level 9 of the file as built (what the size budget counts). */
  gzipBytes: number;
  /** What the server actually sent (brotli when the browser accepts it). */
  wireBytes: number;
  rawBytes: number;
  /** Requested before the card accepted typing (or before the page's scripts ran), i.e. on the critical path. */
  startUp: boolean;
}

export interface StartupFigures {
  scripts: ScriptLoad[];
  startUpGzipBytes: number;
  startUpWireBytes: number;
  lazyGzipBytes: number;
  lazyWireBytes: number;
  /** Median over the loads, without throttling, on loopback: first contentful paint, and the card accepting typing. */
  fcpMs: number;
  readyMs: number;
  loads: number;
}

interface ResourceSample {
  name: string;
  startTime: number;
  encodedBodySize: number;
  decodedBodySize: number;
}

export async function measureStartup(
  browser: Browser,
  url: string,
  fileFor: (path: string) => string,
  loads: number,
): Promise<StartupFigures> {
  const fcps: number[] = [];
  const readies: number[] = [];
  let scripts: ScriptLoad[] = [];
  for (let load = 0; load < loads; load += 1) {
    const open = await openPage(browser, url);
    try {
      // The app fetches its lazy chunk when idle; wait for the network to settle so that it is seen.
      await open.page.waitForLoadState('networkidle');
      const sample = await inPage<{
        ready: number;
        domContentLoaded: number;
        fcp: number | null;
        resources: ResourceSample[];
      }>(
        open.page,
        `(() => {
        const navigation = performance.getEntriesByType('navigation')[0];
        return {
          ready: window.__bench.state.ready,
          domContentLoaded: navigation.domContentLoadedEventStart,
          fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
          resources: performance.getEntriesByType('resource').map((entry) => ({
            name: entry.name,
            startTime: entry.startTime,
            encodedBodySize: entry.encodedBodySize,
            decodedBodySize: entry.decodedBodySize,
          })),
        };
      })()`,
      );
      assertNoErrors(open, url);
      readies.push(sample.ready);
      if (sample.fcp !== null) fcps.push(sample.fcp);
      const criticalUntil = Math.max(sample.ready, sample.domContentLoaded);
      scripts = sample.resources
        .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
        .map((entry) => {
          const path = new URL(entry.name).pathname;
          return {
            path,
            gzipBytes: gzipSync(readFileSync(fileFor(path)), { level: 9 }).length,
            wireBytes: entry.encodedBodySize,
            rawBytes: entry.decodedBodySize,
            startUp: entry.startTime <= criticalUntil,
          };
        });
    } finally {
      await open.close();
    }
  }
  const sum = (startUp: boolean, pick: (script: ScriptLoad) => number) =>
    scripts.filter((script) => script.startUp === startUp).reduce((total, script) => total + pick(script), 0);
  return {
    scripts,
    startUpGzipBytes: sum(true, (script) => script.gzipBytes),
    startUpWireBytes: sum(true, (script) => script.wireBytes),
    lazyGzipBytes: sum(false, (script) => script.gzipBytes),
    lazyWireBytes: sum(false, (script) => script.wireBytes),
    fcpMs: median(fcps),
    readyMs: median(readies),
    loads,
  };
}

// --- long conversations: the cost of one more message, and memory, at each list size ---

/** What one measured append did, as the page saw it (see `measureAppend` in page/instrument.js). */
export interface AppendSample {
  messagesBefore: number;
  ms: number;
  domMs: number | null;
  addedRows: number;
  removedRows: number;
  otherMutations: number;
  commits: number;
  /** Message rows React rendered (the new one included); null on a page without React. */
  renderedRows: number | null;
  rowsAfter: number;
}

export interface ListSizeFigures {
  messages: number;
  /** Median time from the submit to the end of the frame that shows the new message (script, style, layout, paint). */
  appendMs: number;
  appendP90Ms: number;
  /** Median time from the submit to the new row in the DOM. */
  appendDomMs: number;
  /** Worst case over the samples: rows React rendered per append, rows added to the log, other changes in the log. */
  maxRenderedRows: number | null;
  maxAddedRows: number;
  maxOtherMutations: number;
  /** After garbage collection: the JavaScript heap and Blink's (DOM) heap. */
  jsHeapBytes: number;
  domHeapBytes: number;
  domNodes: number;
  /** Characters of message text in the list (ASCII here: one byte each in the JavaScript heap). */
  textChars: number;
  samples: AppendSample[];
}

/** Lets the caller slow the provider down while appends are timed (so no reply lands inside a timed frame). */
export interface ProviderPace {
  instant(): void;
  slow(): void;
  /** A reply of `pieces` pieces, `pieceDelayMs` apart. */
  pieces(pieces: number, pieceDelayMs: number): void;
}

interface HeapUsage {
  usedSize: number;
  embedderHeapUsedSize?: number;
}

async function heapAfterGc(cdp: CDPSession) {
  for (let pass = 0; pass < 3; pass += 1) await cdp.send('HeapProfiler.collectGarbage');
  const heap = (await cdp.send('Runtime.getHeapUsage')) as HeapUsage;
  const counters = await cdp.send('Memory.getDOMCounters');
  return {
    jsHeapBytes: heap.usedSize,
    domHeapBytes: heap.embedderHeapUsedSize ?? Number.NaN,
    domNodes: counters.nodes,
  };
}

export async function measureListSizes(
  browser: Browser,
  url: string,
  sizes: readonly number[],
  samplesPerSize: number,
  pace: ProviderPace,
  userText: string,
): Promise<ListSizeFigures[]> {
  const open = await openPage(browser, url);
  try {
    await open.cdp.send('HeapProfiler.enable');
    const figures: ListSizeFigures[] = [];
    for (const size of sizes) {
      pace.instant();
      // A thousand round trips through the server take a while on a busy machine.
      await inPage(open.page, `window.__bench.fillTo(${size}, ${JSON.stringify(userText)})`, 600_000);
      const memory = await heapAfterGc(open.cdp);
      const text = await inPage<{ messages: number; textChars: number }>(open.page, 'window.__bench.textStats()');

      pace.slow();
      const samples: AppendSample[] = [];
      // The first append after a thousand quick ones meets a garbage collection more often than not: not counted.
      for (let sample = -1; sample < samplesPerSize; sample += 1) {
        const timed = await inPage<AppendSample>(
          open.page,
          `window.__bench.measureAppend(${JSON.stringify(`${userText} (timed append)`)})`,
        );
        if (sample >= 0) samples.push(timed);
      }
      await inPage(open.page, 'window.__bench.idle()');
      const rendered = samples.map((sample) => sample.renderedRows).filter((rows) => rows !== null);
      figures.push({
        messages: text.messages,
        appendMs: median(samples.map((sample) => sample.ms)),
        appendP90Ms: quantile(
          samples.map((sample) => sample.ms),
          0.9,
        ),
        appendDomMs: median(samples.map((sample) => sample.domMs ?? Number.NaN)),
        maxRenderedRows: rendered.length > 0 ? Math.max(...rendered) : null,
        maxAddedRows: Math.max(...samples.map((sample) => sample.addedRows)),
        maxOtherMutations: Math.max(...samples.map((sample) => sample.otherMutations + sample.removedRows)),
        ...memory,
        textChars: text.textChars,
        samples,
      });
    }
    assertNoErrors(open, url);
    return figures;
  } finally {
    pace.instant();
    await open.close();
  }
}

// --- per-message overhead against a provider that answers at once ---

export interface OverheadSample {
  enterToRequest: number | null;
  enterToFirstPaint: number | null;
  firstByteToDom: number | null;
  requestToFirstByte: number | null;
}

export interface OverheadFigures {
  sends: number;
  /** Medians (and 90th percentiles) in ms. */
  enterToRequestMs: number;
  enterToRequestP90Ms: number;
  /** From the Enter keydown to the end of the frame that first paints a piece of the reply: what the visitor waits. */
  enterToFirstPaintMs: number;
  /** From the response's first byte to the reply's bubble in the DOM: the page's own work on the first piece. */
  firstByteToDomMs: number;
  firstByteToDomP90Ms: number;
  /** The loopback round trip through the production server to the fake provider: not the page's doing. */
  requestToFirstByteMs: number;
  samples: OverheadSample[];
}

const SEND_SETTLE_MS = 150;

/** Types and presses Enter like a visitor (Playwright's keyboard), `sends` times after `warmUp` unmeasured sends. */
export async function measureOverhead(
  browser: Browser,
  url: string,
  warmUp: number,
  sends: number,
  userText: string,
): Promise<OverheadFigures> {
  const open = await openPage(browser, url);
  try {
    // The app prefetches its request chunk when idle: a visitor who reads the card first never waits for it.
    await open.page.waitForLoadState('networkidle');
    const samples: OverheadSample[] = [];
    for (let send = 0; send < warmUp + sends; send += 1) {
      await inPage(open.page, 'window.__bench.idle()');
      await inPage(open.page, 'window.__bench.armSend()');
      await open.page.fill(INPUT, `${userText} (send ${send + 1})`);
      await open.page.press(INPUT, 'Enter');
      // Ask for the figures only once the exchange is over: the protocol traffic of a call into the page would land on
      // its main thread while the reply is being handled, and be counted against the page.
      await open.page.waitForTimeout(SEND_SETTLE_MS);
      const sample = await inPage<OverheadSample>(open.page, 'window.__bench.sendResult()');
      if (send >= warmUp) samples.push(sample);
    }
    assertNoErrors(open, url);
    const pick = (key: keyof OverheadSample) => samples.map((sample) => sample[key] ?? Number.NaN);
    return {
      sends,
      enterToRequestMs: median(pick('enterToRequest')),
      enterToRequestP90Ms: quantile(pick('enterToRequest'), 0.9),
      enterToFirstPaintMs: median(pick('enterToFirstPaint')),
      firstByteToDomMs: median(pick('firstByteToDom')),
      firstByteToDomP90Ms: quantile(pick('firstByteToDom'), 0.9),
      requestToFirstByteMs: median(pick('requestToFirstByte')),
      samples,
    };
  } finally {
    await open.close();
  }
}

export interface StreamCostFigures {
  pieces: number;
  /** Main-thread time (every task: script, style, layout, paint) per streamed piece, median over the replies. */
  msPerPiece: number;
  samples: number[];
}

/**
 * What one streamed piece costs the page: the main thread's total task time over a whole reply of `pieces` pieces
 * (Chromium's own `TaskDuration`), divided by the pieces. Nothing runs in the page meanwhile (no observer, no
 * polling), so the figure is the page's alone.
 */
export async function measureStreamCost(
  browser: Browser,
  url: string,
  pace: ProviderPace,
  userText: string,
  { pieces, pieceDelayMs, replies }: { pieces: number; pieceDelayMs: number; replies: number },
): Promise<StreamCostFigures> {
  const open = await openPage(browser, url);
  try {
    await open.page.waitForLoadState('networkidle');
    await open.cdp.send('Performance.enable');
    const taskMs = async () => {
      const { metrics } = await open.cdp.send('Performance.getMetrics');
      return (metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? Number.NaN) * 1000;
    };
    pace.pieces(pieces, pieceDelayMs);
    const samples: number[] = [];
    for (let reply = 0; reply < replies; reply += 1) {
      await inPage(open.page, 'window.__bench.idle()');
      await open.page.fill(INPUT, `${userText} (reply ${reply + 1})`);
      const before = await taskMs();
      await open.page.press(INPUT, 'Enter');
      // Waits from here, not in the page: the stream takes about pieces × delay, and twice that leaves ample slack.
      await open.page.waitForTimeout(pieces * pieceDelayMs * 2 + 500);
      if (!(await inPage<boolean>(open.page, 'window.__bench.isIdle()'))) {
        throw new Error(`${url}: a ${pieces}-piece reply was still coming after the wait`);
      }
      samples.push(((await taskMs()) - before) / pieces);
    }
    assertNoErrors(open, url);
    return { pieces, msPerPiece: median(samples), samples };
  } finally {
    pace.instant();
    await open.close();
  }
}
