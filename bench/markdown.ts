import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser } from '@playwright/test';
import { LAZY_BUDGETS_BYTES } from '../build/size-budget.ts';
import type { FakeProvider } from '../testing/fake-provider.ts';
import { streamedMarkdownReply } from '../testing/markdown-reply.ts';

/** The main thread's work while one reply streams in, from Chromium's own counters. */
export interface StreamCost {
  /** All main-thread tasks. */
  taskMs: number;
  scriptMs: number;
  styleAndLayoutMs: number;
  /** Tasks over 50 ms, in ms (the `longtask` entries). */
  longTasks: number[];
}

export interface MarkdownFigures {
  chunkGzipBytes: number;
  chunkBudgetBytes: number;
  /** The 2,000-character reply in 250 pieces at 4× CPU slowdown, rendered as Markdown. */
  markdown: StreamCost;
  /** The same stream while the renderer's chunk is kept away, so the reply shows as plain text. */
  plain: StreamCost;
}

const CPU_SLOWDOWN = 4;
const CHUNK_NAME = 'rich-reply';

function chunkGzipBytes(clientDir: string): number {
  const assets = `${clientDir}/assets`;
  const file = readdirSync(assets).find((name) => name.startsWith(`${CHUNK_NAME}-`) && name.endsWith('.js'));
  if (!file) throw new Error(`No ${CHUNK_NAME} chunk in ${assets}`);
  return gzipSync(readFileSync(`${assets}/${file}`), { level: 9 }).length;
}

async function streamCost(browser: Browser, url: string, provider: FakeProvider, asMarkdown: boolean) {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 } });
  try {
    const page = await context.newPage();
    if (!asMarkdown) await page.route(new RegExp(`/assets/${CHUNK_NAME}-`), (route) => route.abort());
    await page.goto(url);
    const input = page.getByRole('textbox', { name: 'Message' });
    const bot = page.locator('[data-sender="bot"]');
    const exchange = async (text: string, replies: number) => {
      await input.fill(text);
      await input.press('Enter');
      await bot.nth(replies - 1).waitFor();
      await page.waitForFunction(
        () => !document.querySelector('input[aria-label="Message"]')?.hasAttribute('disabled'),
      );
    };
    // A first reply loads the renderer (or finds it kept away) and runs it once.
    provider.respondWith({ content: 'Warm **up**.' });
    await exchange('Warm up', 1);
    if (asMarkdown) await page.locator('[data-sender="bot"] strong').waitFor();

    await page.evaluate(() => {
      const tasks: number[] = [];
      Object.assign(window, { benchLongTasks: tasks });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) tasks.push(Math.round(entry.duration));
      }).observe({ type: 'longtask' });
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const counters = async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      const value = (name: string) => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1000;
      return {
        task: value('TaskDuration'),
        script: value('ScriptDuration'),
        styleAndLayout: value('RecalcStyleDuration') + value('LayoutDuration'),
      };
    };
    const { pieces } = streamedMarkdownReply();
    provider.respondWith({ stream: pieces, pieceDelayMs: 10 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    const before = await counters();
    await exchange('A long answer, please', 2);
    const after = await counters();
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    const longTasks = await page.evaluate(() => (window as unknown as { benchLongTasks: number[] }).benchLongTasks);
    return {
      taskMs: after.task - before.task,
      scriptMs: after.script - before.script,
      styleAndLayoutMs: after.styleAndLayout - before.styleAndLayout,
      longTasks,
    };
  } finally {
    await context.close();
  }
}

/**
 * What Markdown costs: the lazy chunk's size, and the main thread's work while a 2,000-character reply streams in
 * 250 pieces at 4× CPU slowdown, as Markdown and (the renderer kept away) as plain text. The provider is left
 * answering as `restore` says.
 */
export async function measureMarkdown(
  browser: Browser,
  url: string,
  provider: FakeProvider,
  clientDir: string,
  restore: () => void,
): Promise<MarkdownFigures> {
  try {
    return {
      chunkGzipBytes: chunkGzipBytes(clientDir),
      chunkBudgetBytes: LAZY_BUDGETS_BYTES[CHUNK_NAME],
      markdown: await streamCost(browser, url, provider, true),
      plain: await streamCost(browser, url, provider, false),
    };
  } finally {
    restore();
  }
}

/** The Markdown figures as a Markdown table, printed under the main one. */
export function renderMarkdownTable(figures: MarkdownFigures): string {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const longest = (cost: StreamCost) => (cost.longTasks.length ? `${Math.max(...cost.longTasks)} ms` : 'none');
  const rows = [
    ['Figure', 'As Markdown', 'As plain text', 'Target', 'Met'],
    ['---', '---:', '---:', '---:', '---:'],
    [
      'Markdown chunk (lazy), gzip -9',
      `${(figures.chunkGzipBytes / 1000).toFixed(1)} KB`,
      '—',
      `≤ ${(figures.chunkBudgetBytes / 1000).toFixed(1)} KB`,
      figures.chunkGzipBytes <= figures.chunkBudgetBytes ? 'yes' : 'NO',
    ],
    [
      'Streaming 2,000 chars in 250 pieces at 4× CPU: main-thread time',
      ms(figures.markdown.taskMs),
      ms(figures.plain.taskMs),
      '',
      '',
    ],
    ['… of it script', ms(figures.markdown.scriptMs), ms(figures.plain.scriptMs), '', ''],
    ['… of it style and layout', ms(figures.markdown.styleAndLayoutMs), ms(figures.plain.styleAndLayoutMs), '', ''],
    [
      '… longest task over 50 ms',
      longest(figures.markdown),
      longest(figures.plain),
      'none',
      figures.markdown.longTasks.length === 0 ? 'yes' : 'NO',
    ],
  ];
  return rows.map((row) => `| ${row.join(' | ')} |`).join('\n');
}
