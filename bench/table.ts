import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';

/** The one table renderer of the bench and the load test: a Markdown table, first column left, the others right. */
export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, index) => (index === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

export const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
export const ms = (value: number, digits = 1) => (Number.isFinite(value) ? `${value.toFixed(digits)} ms` : 'n/a');
export const met = (ok: boolean) => (ok ? 'yes' : 'NO');

/** The machine's state for a results file: results move with the load average, so it is written next to them. */
export function machineLine(loadBefore: number[]): string {
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  return `${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; load average ${load(loadBefore)} before, ${load(loadavg())} after`;
}

/** Parses `--runs=N` (default 3): how many times each Lighthouse page and form factor runs, the median kept. */
export function runsFlag(): number {
  const flag = process.argv.find((arg) => arg.startsWith('--runs='));
  const runs = flag ? Number(flag.slice('--runs='.length)) : 3;
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number from 1 (got ${flag})`);
  return runs;
}

/** Writes the printed Markdown, and optionally every sample as JSON, into bench/results/. */
export async function writeResults(name: string, markdown: string, data?: unknown): Promise<void> {
  const dir = new URL('./results/', import.meta.url);
  await mkdir(dir, { recursive: true });
  await writeFile(new URL(`${name}.md`, dir), `${markdown}\n`);
  if (data !== undefined) await writeFile(new URL(`${name}.json`, dir), `${JSON.stringify(data, null, 2)}\n`);
  console.log(`[${name}] wrote bench/results/${name}.md${data === undefined ? '' : ` and ${name}.json`}`);
}

export const median = (values: readonly number[]) => quantile(values, 0.5);

/** The `q` quantile (0 to 1), interpolated between the closest ranks; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  return sorted[below] + (sorted[Math.ceil(position)] - sorted[below]) * (position - below);
}
