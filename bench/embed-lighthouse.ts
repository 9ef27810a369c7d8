// `npm run bench:embed`: Lighthouse on a plain page of another origin, without and with the embed snippet. What the
// snippet may cost a host page: at most 1 point of any Lighthouse score. Options: `--runs=N` runs per page and form
// factor (default 3, median kept). Builds and serves the app as `npm run bench` does.

import { cpus, loadavg } from 'node:os';
import { chromium as playwrightChromium } from '@playwright/test';
import { chromiumExecutable } from '../testing/chromium.ts';
import { startFakeProvider } from '../testing/fake-provider.ts';
import { hostPageHtml, startHostSite } from '../testing/host-site.ts';
import { type LighthouseFigures, runLighthouse, startDebugChromium } from './lighthouse.ts';
import { buildAll, startServer } from './serve.ts';

const SCORES = ['performance', 'accessibility', 'bestPractices', 'seo'] as const;
const METRICS = ['fcpMs', 'lcpMs', 'tbtMs', 'cls'] as const;

const flag = process.argv.find((arg) => arg.startsWith('--runs='));
const runs = flag ? Number(flag.slice('--runs='.length)) : 3;

async function main(): Promise<boolean> {
  const chromiumPath = chromiumExecutable() ?? playwrightChromium.executablePath();
  await buildAll();
  const provider = await startFakeProvider();
  const server = await startServer(provider.baseURL);
  const site = await startHostSite();
  const chromium = await startDebugChromium(chromiumPath);
  const loadBefore = loadavg();
  let ok = true;
  try {
    const appOrigin = new URL(server.url).origin;
    const pages = {
      without: site.page('/without', hostPageHtml({ appOrigin, snippet: false })),
      with: site.page('/with', hostPageHtml({ appOrigin })),
    };
    for (const formFactor of ['mobile', 'desktop'] as const) {
      const figures: Record<keyof typeof pages, LighthouseFigures> = {
        without: await runLighthouse(pages.without, chromium.port, formFactor, runs),
        with: await runLighthouse(pages.with, chromium.port, formFactor, runs),
      };
      console.log(`\nLighthouse ${formFactor}, median of ${runs}: without the snippet → with it`);
      for (const score of SCORES) {
        const drop = figures.without[score] - figures.with[score];
        ok &&= drop <= 1;
        console.log(
          `  ${score.padEnd(14)} ${figures.without[score]} → ${figures.with[score]}${drop > 1 ? '  (over 1 point)' : ''}`,
        );
      }
      for (const metric of METRICS) {
        console.log(
          `  ${metric.padEnd(14)} ${figures.without[metric].toFixed(metric === 'cls' ? 3 : 0)} → ${figures.with[metric].toFixed(metric === 'cls' ? 3 : 0)}`,
        );
      }
    }
  } finally {
    await chromium.close();
    await site.close();
    await server.close();
    await provider.close();
  }
  const load = (figures: number[]) => figures.map((figure) => figure.toFixed(2)).join(' ');
  console.log(`\n${cpus().length} CPUs; load average ${load(loadBefore)} before, ${load(loadavg())} after`);
  console.log(ok ? 'Every score within 1 point.' : 'A score dropped by more than 1 point.');
  return ok;
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
