// `npm run bench`: builds the app, serves it with the production server (against a fake provider on loopback that
// answers at once) next to a no-framework baseline page, measures both in Chromium, prints a table and writes
// bench/results/latest.json. Options: `--runs=N` Lighthouse runs per page and form factor (default 3, median kept).

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium as playwrightChromium } from '@playwright/test';
import { START_UP_BUDGET_BYTES } from '../build/size-budget.ts';
import { chromiumExecutable } from '../testing/chromium.ts';
import { type FakeBehaviour, startFakeProvider } from '../testing/fake-provider.ts';
import {
  launchBrowser,
  measureListSizes,
  measureOverhead,
  measureStartup,
  measureStreamCost,
  type ProviderPace,
} from './browser.ts';
import { runLighthouse, startDebugChromium } from './lighthouse.ts';
import { measureMarkdown, renderMarkdownTable } from './markdown.ts';
import { BASELINE_PATH, buildAll, CLIENT_DIR, ROOT_DIR, startServer } from './serve.ts';
import { type BenchResults, evaluate, renderTable } from './table.ts';

const RESULTS_FILE = fileURLToPath(new URL('./results/latest.json', import.meta.url));
const TABLE_FILE = fileURLToPath(new URL('./results/latest.md', import.meta.url));

const LIST_SIZES = [10, 100, 1000, 2000] as const;
const APPEND_SAMPLES = 15;
const STARTUP_LOADS = 3;
const OVERHEAD_WARM_UP = 3;
const OVERHEAD_SENDS = 30;
/** A reply of 250 tokens (max_tokens), one piece each, as a provider streams them. */
const STREAM = { pieces: 250, pieceDelayMs: 4, replies: 5 };

const USER_TEXT = 'How long does the delivery take to Lisbon, and can I change the address after ordering?';
const REPLY_TEXT =
  'Delivery to Lisbon usually takes two to four working days. You can change the address until the parcel ' +
  'leaves the warehouse: open the order, choose "Change address" and confirm. After dispatch, contact the carrier.';
const INSTANT: FakeBehaviour = { content: REPLY_TEXT };
// While an append is timed, the reply must not land in the same frame: it waits this long.
const SLOW: FakeBehaviour = { content: REPLY_TEXT, delayMs: 60 };

function lighthouseRuns(): number {
  const flag = process.argv.find((arg) => arg.startsWith('--runs='));
  const runs = flag ? Number(flag.slice('--runs='.length)) : 3;
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number from 1 (got ${flag})`);
  return runs;
}

function commandOutput(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { cwd: ROOT_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

function step(message: string) {
  console.log(`[bench] ${message}`);
}

async function main() {
  const runs = lighthouseRuns();
  const started = performance.now();
  const loadBefore = loadavg();
  const closers: (() => Promise<unknown>)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    closers.length = 0;
  };
  // Ctrl-C must not leave a server or a browser behind either.
  const interrupted = () => {
    void closeAll().then(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    // Throws with install advice when there is no Chromium; Lighthouse needs a path, Playwright's own if need be.
    const chromiumPath = chromiumExecutable() ?? playwrightChromium.executablePath();
    step('building the app (client with its size budget, then the server)');
    await buildAll();

    const provider = await startFakeProvider();
    closers.push(() => provider.close());
    provider.respondWith(INSTANT);
    const pace: ProviderPace = {
      instant: () => provider.respondWith(INSTANT),
      slow: () => provider.respondWith(SLOW),
      pieces: (pieces, pieceDelayMs) =>
        provider.respondWith({ stream: Array.from({ length: pieces }, (_, i) => `word${i} `), pieceDelayMs }),
    };

    const server = await startServer(provider.baseURL);
    closers.push(() => server.close());
    const pages = { app: `${server.url}/`, baseline: `${server.url}${BASELINE_PATH}` } as const;
    step(`serving the app at ${pages.app} and the baseline at ${pages.baseline}`);

    const browser = await launchBrowser();
    closers.push(() => browser.close());
    const fileFor = (path: string) => `${CLIENT_DIR}${path}`;

    step(`start-up: ${STARTUP_LOADS} loads of each page`);
    const startup = {
      app: await measureStartup(browser, pages.app, fileFor, STARTUP_LOADS),
      baseline: await measureStartup(browser, pages.baseline, fileFor, STARTUP_LOADS),
    };

    step(`per-message overhead: ${OVERHEAD_SENDS} sends on each page`);
    const overhead = {
      app: await measureOverhead(browser, pages.app, OVERHEAD_WARM_UP, OVERHEAD_SENDS, USER_TEXT),
      baseline: await measureOverhead(browser, pages.baseline, OVERHEAD_WARM_UP, OVERHEAD_SENDS, USER_TEXT),
    };

    step(`streaming: ${STREAM.replies} replies of ${STREAM.pieces} pieces on each page`);
    const streaming = {
      app: await measureStreamCost(browser, pages.app, pace, USER_TEXT, STREAM),
      baseline: await measureStreamCost(browser, pages.baseline, pace, USER_TEXT, STREAM),
    };

    step(`long conversations: appends at ${LIST_SIZES.join(', ')} messages`);
    const lists = {
      app: await measureListSizes(browser, pages.app, LIST_SIZES, APPEND_SAMPLES, pace, USER_TEXT),
      baseline: await measureListSizes(browser, pages.baseline, LIST_SIZES, APPEND_SAMPLES, pace, USER_TEXT),
    };
    step('Markdown: a 2,000-character reply in 250 pieces at 4× CPU slowdown, as Markdown and as plain text');
    const markdown = await measureMarkdown(browser, pages.app, provider, CLIENT_DIR, pace.instant);
    await browser.close();

    step(`Lighthouse: ${runs} run(s) per page and form factor, median kept`);
    const chromium = await startDebugChromium(chromiumPath);
    closers.push(() => chromium.close());
    const lighthouse = {
      mobile: {
        app: await runLighthouse(pages.app, chromium.port, 'mobile', runs),
        baseline: await runLighthouse(pages.baseline, chromium.port, 'mobile', runs),
      },
      desktop: {
        app: await runLighthouse(pages.app, chromium.port, 'desktop', runs),
        baseline: await runLighthouse(pages.baseline, chromium.port, 'desktop', runs),
      },
    };

    const results: BenchResults = {
      date: new Date().toISOString(),
      commit: commandOutput('git', ['rev-parse', '--short', 'HEAD']),
      treeChanged: commandOutput('git', ['status', '--porcelain']) !== '',
      environment: {
        node: process.version,
        chromium: commandOutput(chromiumPath, ['--version']),
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        loadAverageBefore: loadBefore,
        loadAverageAfter: loadavg(),
        lighthouseRuns: runs,
      },
      budgetBytes: START_UP_BUDGET_BYTES,
      startup,
      lighthouse,
      overhead,
      lists,
      streaming,
      wallSeconds: 0,
    };
    results.wallSeconds = Math.round((performance.now() - started) / 1000);

    const table = `${renderTable(results)}\n\n${renderMarkdownTable(markdown)}`;
    console.log(`\n${table}\n`);
    await mkdir(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
    await writeFile(
      RESULTS_FILE,
      `${JSON.stringify({ ...results, markdown, verdicts: evaluate(results) }, null, 2)}\n`,
    );
    await writeFile(TABLE_FILE, `${table}\n`);
    step(`wrote ${RESULTS_FILE} and ${TABLE_FILE} (${results.wallSeconds} s)`);
  } finally {
    await closeAll();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

main().catch((error: unknown) => {
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
