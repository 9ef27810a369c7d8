import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { transitionsEnded } from './fixtures';

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * How much longer a test may take for each axe run: axe on a whole page is slow, and far slower on a busy machine,
 * so a test that runs it gets the time on top of its own rather than racing the test timeout.
 */
const AXE_ALLOWANCE_MS = 30_000;

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
