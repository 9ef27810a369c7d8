// `npm run build` runs this after `tsc -b`, which compiles packages/react: the React component's JavaScript, as its
// tarball ships it, against its budget. It fails the build past it and prints the figures either way.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkBudget, gzipBytes } from './size-budget.ts';

/** `@ai-assistant/react`'s limit: a React site bundles all of it into its own pages. */
export const REACT_PACKAGE_BUDGET_BYTES = 2048;

const DIST = fileURLToPath(new URL('../packages/react/dist', import.meta.url));

/** The package's JavaScript files (`dist/*.js`) and their gzip sizes, against the budget. */
export function checkPackageBudget(dir = DIST, budget = REACT_PACKAGE_BUDGET_BYTES) {
  const files = readdirSync(dir).filter((name) => name.endsWith('.js'));
  if (files.length === 0) throw new Error(`No JavaScript in ${dir}: run \`tsc -b\` first`);
  const chunks = files.map((name) => ({
    fileName: `packages/react/dist/${name}`,
    gzipBytes: gzipBytes(readFileSync(join(dir, name))),
  }));
  return checkBudget(chunks, budget, '@ai-assistant/react total');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ok, report } = checkPackageBudget();
  console.log(`@ai-assistant/react ${ok ? 'within' : 'over'} its size budget (gzip level 9):\n${report}`);
  if (!ok) process.exit(1);
}
