import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse, { desktopConfig, type Flags, type Result } from 'lighthouse';
import { median } from './stats.ts';

export type FormFactor = 'mobile' | 'desktop';

/** The figures of one Lighthouse run, or the medians of several (each figure on its own). */
export interface LighthouseFigures {
  runs: number;
  /** Category scores, 0 to 100. */
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  /** Lighthouse's metrics, in ms (CLS unitless). Simulated throttling: the mobile ones are for a slow phone. */
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  speedIndexMs: number;
  /** Audits that did not pass in the accessibility and best-practices categories (ids), from any run. */
  failedAudits: string[];
  warnings: string[];
  benchmarkIndex: number;
}

/** A Chromium with a DevTools port for Lighthouse, with its own throw-away profile. */
export interface DebugChromium {
  port: number;
  close(): Promise<void>;
}

const DEVTOOLS_LISTENING = /DevTools listening on ws:\/\/[^:]+:(\d+)\//;

/** Starts the Chromium at `executablePath` headless, as Lighthouse's CLI would (`--headless=new --no-sandbox`). */
export async function startDebugChromium(executablePath: string): Promise<DebugChromium> {
  const profile = await mkdtemp(join(tmpdir(), 'bench-lighthouse-'));
  const child: ChildProcess = spawn(
    executablePath,
    [
      '--headless=new',
      // As root (CI, containers) Chromium will not start its sandbox, and without this flag it hangs silently.
      '--no-sandbox',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      // chrome-launcher's defaults for a quiet, reproducible browser.
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-extensions',
      '--disable-sync',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--mute-audio',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const stderr: string[] = [];
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(profile, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Chromium did not open its DevTools port:\n${stderr.join('')}`)),
        30_000,
      );
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr.push(chunk.toString('utf8'));
        const match = DEVTOOLS_LISTENING.exec(stderr.join(''));
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`Chromium exited (code ${code}):\n${stderr.join('')}`)));
    });
    return { port, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function figuresOf(lhr: Result): Omit<LighthouseFigures, 'runs'> {
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const metric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  const failedAudits = ['accessibility', 'best-practices'].flatMap((category) =>
    (lhr.categories[category]?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
      .map((ref) => ref.id),
  );
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    fcpMs: metric('first-contentful-paint'),
    lcpMs: metric('largest-contentful-paint'),
    tbtMs: metric('total-blocking-time'),
    cls: metric('cumulative-layout-shift'),
    speedIndexMs: metric('speed-index'),
    failedAudits,
    warnings: lhr.runWarnings,
    benchmarkIndex: lhr.environment.benchmarkIndex,
  };
}

/** Runs Lighthouse `runs` times on `url` (mobile: its default, a throttled mid-range phone) and takes medians. */
export async function runLighthouse(
  url: string,
  port: number,
  formFactor: FormFactor,
  runs: number,
): Promise<LighthouseFigures> {
  const flags: Flags = {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
  };
  const results: Omit<LighthouseFigures, 'runs'>[] = [];
  // Lighthouse's own trace recording now and then fails (NO_NAVSTART and the like): such a run measured nothing, so
  // it is tried again, a few times at most, rather than ending a benchmark of several minutes.
  let attemptsLeft = runs + 2;
  while (results.length < runs) {
    attemptsLeft -= 1;
    const result = await lighthouse(url, flags, formFactor === 'desktop' ? desktopConfig : undefined);
    const failure = !result ? 'it returned nothing' : result.lhr.runtimeError;
    if (!failure && result) {
      results.push(figuresOf(result.lhr));
      continue;
    }
    const reason = typeof failure === 'string' ? failure : `${failure?.code} ${failure?.message}`;
    if (attemptsLeft <= 0) throw new Error(`Lighthouse failed on ${url}: ${reason}`);
    console.warn(`[bench] Lighthouse failed on ${url} (${reason}); trying again`);
  }
  const mid = (pick: (figures: Omit<LighthouseFigures, 'runs'>) => number) => median(results.map(pick));
  return {
    runs,
    performance: mid((r) => r.performance),
    accessibility: mid((r) => r.accessibility),
    bestPractices: mid((r) => r.bestPractices),
    seo: mid((r) => r.seo),
    fcpMs: mid((r) => r.fcpMs),
    lcpMs: mid((r) => r.lcpMs),
    tbtMs: mid((r) => r.tbtMs),
    cls: mid((r) => r.cls),
    speedIndexMs: mid((r) => r.speedIndexMs),
    failedAudits: [...new Set(results.flatMap((r) => r.failedAudits))],
    warnings: [...new Set(results.flatMap((r) => r.warnings))],
    benchmarkIndex: mid((r) => r.benchmarkIndex),
  };
}
