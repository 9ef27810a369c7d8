import { launch } from 'chrome-launcher';
import lighthouse, { desktopConfig, type Result } from 'lighthouse';
import { median } from './table.ts';

export type LighthouseFigures = ReturnType<typeof figuresOf>;
const KEYS = ['performance', 'accessibility', 'bestPractices', 'seo', 'fcpMs', 'lcpMs', 'tbtMs', 'cls'] as const;

/** A headless Chromium with a DevTools port for Lighthouse (as root it needs `--no-sandbox`, or it hangs silently). */
export const startDebugChromium = (chromePath: string) =>
  launch({ chromePath, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage'] });

/** One run's figures: category scores 0–100, metrics in ms (CLS unitless; the mobile ones a simulated slow phone's). */
function figuresOf(lhr: Result) {
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const metric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    fcpMs: metric('first-contentful-paint'),
    lcpMs: metric('largest-contentful-paint'),
    tbtMs: metric('total-blocking-time'),
    cls: metric('cumulative-layout-shift'),
  };
}

/** Runs Lighthouse `runs` times on `url` (mobile: its default, a throttled mid-range phone) and takes medians. */
export async function runLighthouse(url: string, port: number, formFactor: 'mobile' | 'desktop', runs: number) {
  const results: LighthouseFigures[] = [];
  for (let run = 0; run < runs; run += 1) results.push(await lighthouseOnce(url, port, formFactor));
  return medians(results);
}

export const medians = (results: LighthouseFigures[]) =>
  Object.fromEntries(KEYS.map((key) => [key, median(results.map((r) => r[key]))])) as LighthouseFigures;

/** One Lighthouse run's figures. */
export async function lighthouseOnce(url: string, port: number, formFactor: 'mobile' | 'desktop') {
  const onlyCategories = ['performance', 'accessibility', 'best-practices', 'seo'];
  const flags = { port, output: 'json' as const, logLevel: 'error' as const, onlyCategories };
  // Lighthouse's trace recording now and then fails (NO_NAVSTART): such a run measured nothing and is retried.
  for (let attemptsLeft = 3; ; attemptsLeft -= 1) {
    const result = await lighthouse(url, flags, formFactor === 'desktop' ? desktopConfig : undefined);
    const failure = result ? result.lhr.runtimeError : { code: 'NO_RESULT', message: 'it returned nothing' };
    if (result && !failure) return figuresOf(result.lhr);
    if (attemptsLeft <= 1) throw new Error(`Lighthouse failed on ${url}: ${failure?.code} ${failure?.message}`);
    console.warn(`[bench] Lighthouse failed on ${url} (${failure?.code}); trying again`);
  }
}
