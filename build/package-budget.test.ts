import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPackageBudget, REACT_PACKAGE_BUDGET_BYTES } from './package-budget.ts';
import { gzipBytes } from './size-budget.ts';

describe("the React package's size budget", () => {
  const dir = mkdtempSync(join(tmpdir(), 'package-budget-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts every JavaScript file of dist, not the types, and fails one byte over', () => {
    const code = 'export const a = 1;'.repeat(50);
    writeFileSync(join(dir, 'a.js'), code);
    writeFileSync(join(dir, 'b.js'), code);
    writeFileSync(join(dir, 'a.d.ts'), 'x'.repeat(100_000));
    const bytes = 2 * gzipBytes(code);

    expect(checkPackageBudget(dir, bytes).ok).toBe(true);
    const over = checkPackageBudget(dir, bytes - 1);
    expect(over.ok).toBe(false);
    expect(over.report).toContain(`${bytes} B gzip (budget ${bytes - 1} B`);
    expect(REACT_PACKAGE_BUDGET_BYTES).toBe(2048);
  });
});
