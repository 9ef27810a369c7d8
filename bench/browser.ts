import { readFileSync } from 'node:fs';
import { type Browser, type CDPSession, chromium, type Frame, type Page } from '@playwright/test';
import { CREATE_SYSTEM_MEASURE } from '../src/create-system-measure.ts';
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
 * `url` in a fresh, instrumented context, once the card accepts typing and idle fetches are done. `close()` throws if
 * the page reported errors (its figures would be suspect). `blockChunk` keeps a lazy chunk away; `cpuSlowdown`
 * throttles the CPU from before the navigation.
 */
async function openPage(browser: Browser, url: string, { blockChunk = '', cpuSlowdown = 1 } = {}) {
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
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
    await page.goto(url);
    await run('window.__bench.whenReady()');
    await page.waitForLoadState('networkidle');
    return { page, cdp, run, close };
  } catch (error) {
    await context.close();
    throw error;
  }
}

type Script = { path: string; startTime: number; wireBytes: number };

/**
 * Over `loads` fresh loads: script sizes (gzip -9 from the build's report, and as served) requested before the card
 * accepted typing and later, and the medians of first contentful paint and of the card accepting typing.
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
  return {
    scripts,
    startUpGzipBytes: sum(true, 'gzipBytes'),
    startUpWireBytes: sum(true, 'wireBytes'),
    lazyGzipBytes: sum(false, 'gzipBytes'),
    fcpMs: median(fcps),
    readyMs: median(readies),
  };
}

/**
 * Over `loads` fresh loads at `cpuSlowdown`× CPU: each load's longest main-thread task (0 for none over 50 ms) from
 * the navigation until the card accepts typing and the idle prefetches are done, and how long creating Chakra's
 * system took (src/system.ts measures it; NaN on a page that does not).
 */
export async function startupLongestTasks(browser: Browser, url: string, loads: number, cpuSlowdown: number) {
  const figures = { longest: [] as number[], createSystem: [] as number[] };
  for (let load = 0; load < loads; load += 1) {
    const open = await openPage(browser, url, { cpuSlowdown });
    figures.longest.push(Math.max(0, ...(await open.run<number[]>('window.__bench.takeLongTasks()'))));
    figures.createSystem.push(
      await open.run<number>(
        `performance.getEntriesByName(${JSON.stringify(CREATE_SYSTEM_MEASURE)})[0]?.duration ?? Number.NaN`,
      ),
    );
    await open.close();
  }
  return figures;
}

export type StartupTaskFigures = Awaited<ReturnType<typeof startupLongestTasks>>;

type Append = { ms: number; addedRows: number; otherMutations: number; renderedRows: number | null };

/** At each list size: the median append time, the worst rows rendered, added and other changes, the JS + DOM heap. */
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

/** Per-message overhead: medians over `sends` messages typed and sent with Enter, after `warmUp` unmeasured ones. */
export async function measureOverhead(browser: Browser, url: string, warmUp: number, sends: number) {
  const open = await openPage(browser, url);
  const samples: Record<string, number | null>[] = [];
  for (let send = 0; send < warmUp + sends; send += 1) {
    await open.run('window.__bench.armSend()');
    await open.page.fill(INPUT, `${USER_TEXT} (send ${send + 1})`);
    await open.page.press(INPUT, 'Enter');
    // A call into the page during the exchange would add its own work to the page's main thread.
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
 * Streams `replies` replies of `pieces` at a CPU slowdown, after a warm-up, and reads the main thread's work from
 * Chromium's counters (medians) and its long tasks; the page is not polled while it streams. `render: false` keeps
 * the Markdown chunk away, so that replies show as plain text.
 */
export async function streamProbe(
  browser: Browser,
  url: string,
  provider: FakeProvider,
  options: { pieces: string[]; pieceDelayMs: number; replies: number; cpuSlowdown: number },
  markdown: { chunk: string; render: boolean },
) {
  const { page, cdp, run, close } = await openPage(browser, url, { blockChunk: markdown.render ? '' : markdown.chunk });
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

// In every frame: long tasks, and in the host page the click on the launcher, in the frame the moment an enabled
// message box takes the focus; times on the epoch clock, which the two documents share.
const EMBED_OPEN_INSTRUMENT = `(() => {
  const at = (ms) => performance.timeOrigin + ms;
  const state = (window.__embedOpen = { tasks: [] });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.tasks.push([at(entry.startTime), entry.duration]);
  }).observe({ type: 'longtask' });
  if (window === window.top) {
    document.addEventListener('click', (event) => { state.click ??= at(event.timeStamp); }, true);
  } else {
    document.addEventListener('focusin', (event) => {
      if (event.target.matches('input[aria-label="Message"]:enabled')) state.typable ??= at(performance.now());
    }, true);
  }
})()`;

type EmbedOpenState = { tasks: [number, number][]; click?: number; typable?: number };

/**
 * The embed on a host page, `runs` fresh loads at a CPU slowdown (the page's target and the frame's if it has its
 * own): the visitor points at the launcher, `intentMs` later clicks it; from the click to an enabled, focused message
 * box in the frame (median), which keeps what is typed into it (e2e/embed.spec.ts), and the longest task over 50 ms
 * in that interval (any run).
 */
export async function measureEmbedOpen(
  browser: Browser,
  hostUrl: string,
  { runs, cpuSlowdown, intentMs }: { runs: number; cpuSlowdown: number; intentMs: number },
) {
  const intervals: number[] = [];
  let longestTaskMs = 0;
  for (let run = 0; run < runs; run += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript({ content: EMBED_OPEN_INSTRUMENT });
    const page = await context.newPage();
    const throttle = (cdp: CDPSession) => cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
    // A frame of another site gets its own process and target; one of the same site shares the page's.
    page.on('frameattached', (frame) => {
      context.newCDPSession(frame).then(throttle, () => undefined);
    });
    await page.goto(hostUrl);
    await page.waitForLoadState('networkidle');
    await throttle(await context.newCDPSession(page));
    const box = await page.getByRole('button', { name: 'Chat with AI Assistant' }).boundingBox();
    if (!box) throw new Error(`${hostUrl}: no launcher`);
    // The mouse itself, not a locator's click: that waits for the page to settle first (frames painted, the launcher
    // still), which the frame's start-up delays; a visitor's click is queued while the page is busy, and counted here
    // from the moment it was made.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    if (intentMs > 0) await page.waitForTimeout(intentMs);
    await page.mouse.down();
    await page.mouse.up();
    const frame = await (await page.waitForSelector('iframe')).contentFrame();
    if (!frame) throw new Error(`${hostUrl}: the launcher opened no frame`);
    // Polled from here: `waitForFunction` evaluates its predicate in the page with `eval`, which the app's CSP blocks.
    const deadline = Date.now() + 60_000;
    while (!(await frame.evaluate('Boolean(window.__embedOpen?.typable)'))) {
      if (Date.now() > deadline) throw new Error(`${hostUrl}: the frame's message box was never focused`);
      await page.waitForTimeout(100);
    }
    const read = (target: Page | Frame) => target.evaluate('window.__embedOpen') as Promise<EmbedOpenState>;
    const [host, framed] = [await read(page), await read(frame)];
    await context.close();
    if (host.click === undefined || framed.typable === undefined) throw new Error(`${hostUrl}: no click or focus`);
    const [from, to] = [host.click, framed.typable];
    intervals.push(to - from);
    for (const [start, duration] of [...host.tasks, ...framed.tasks]) {
      if (start < to && start + duration > from) longestTaskMs = Math.max(longestTaskMs, duration);
    }
  }
  return { clickToTypeMs: median(intervals), intervals, longestTaskMs };
}

export type EmbedOpenFigures = Awaited<ReturnType<typeof measureEmbedOpen>>;
