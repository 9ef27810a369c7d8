import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * How much longer a test may take for each axe run: axe on a whole page is slow, and far slower on a busy machine,
 * so a test that runs it gets the time on top of its own rather than racing the test timeout.
 */
const AXE_ALLOWANCE_MS = 30_000;

/**
 * Waits for every CSS transition running in the page and its frames to end. axe judges colours as they are painted at
 * that moment: half-way through a button's fade from disabled (opacity 0.5) to enabled, white on the accent reads
 * 4.05:1, a contrast no visitor is left with.
 */
async function transitionsEnded(page: Page) {
  for (const frame of page.frames()) {
    await frame.evaluate(() =>
      Promise.all(
        document
          .getAnimations()
          .filter((animation) => animation instanceof CSSTransition)
          .map((transition) => transition.finished.catch(() => undefined)),
      ),
    );
  }
}

/**
 * Runs axe on the whole page at rest (its transitions ended); a violation fails with its rule, its help text and the
 * elements it found.
 */
export async function expectNoAxeViolations(page: Page, when: string) {
  test.info().setTimeout(test.info().timeout + AXE_ALLOWANCE_MS);
  await transitionsEnded(page);
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze();
  const found = violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help}\n` +
      violation.nodes.map((node) => `    ${node.target.join(' ')}: ${node.failureSummary}`).join('\n'),
  );
  expect(found, `axe WCAG 2.1 A/AA violations ${when}`).toEqual([]);
}
