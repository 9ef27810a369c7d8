import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Start-up JavaScript limit: the entry chunk and every chunk it imports statically (which Vite also preloads). */
export const START_UP_BUDGET_BYTES = 120_000;

export interface ChunkSize {
  fileName: string;
  gzipBytes: number;
}

interface ChunkLike {
  type: 'chunk' | 'asset';
  fileName: string;
  isEntry?: boolean;
  imports?: string[];
  code?: string;
}

/** The gzip sizes (level 9, deterministic) of the entry chunks and their static imports, each counted once. */
export function startUpChunks(bundle: Record<string, ChunkLike>): ChunkSize[] {
  const seen = new Set<string>();
  const visit = (fileName: string) => {
    const chunk = bundle[fileName];
    if (seen.has(fileName) || chunk?.type !== 'chunk') return;
    seen.add(fileName);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk' && chunk.isEntry) visit(chunk.fileName);
  return [...seen].map((fileName) => ({
    fileName,
    gzipBytes: gzipSync(bundle[fileName].code ?? '', { level: 9 }).length,
  }));
}

/** A report of the start-up chunks against the budget, and whether it holds. */
export function checkBudget(chunks: ChunkSize[], budget = START_UP_BUDGET_BYTES) {
  const total = chunks.reduce((sum, chunk) => sum + chunk.gzipBytes, 0);
  const lines = [
    ...chunks.map((chunk) => `  ${chunk.fileName.padEnd(44)} ${String(chunk.gzipBytes).padStart(8)} B gzip`),
    `  ${'start-up total'.padEnd(44)} ${String(total).padStart(8)} B gzip (budget ${budget} B, ${((total / budget) * 100).toFixed(1)}%)`,
  ];
  return { total, ok: total <= budget, report: lines.join('\n') };
}

/**
 * Fails the production build when the JavaScript needed before the first interaction grows past the budget, and
 * prints the figures either way. Lazy chunks (the openai client) are not counted: they load after the first paint.
 */
export function sizeBudget(budget = START_UP_BUDGET_BYTES): Plugin {
  return {
    name: 'size-budget',
    apply: 'build',
    // At writeBundle the chunks hold their final code (Vite still rewrites them during generateBundle).
    writeBundle(_options, bundle) {
      // Server (SSR) builds have no page to load.
      if (this.environment.name !== 'client') return;
      const { ok, report } = checkBudget(startUpChunks(bundle as Record<string, ChunkLike>), budget);
      if (!ok) this.error(`Start-up JavaScript is over its size budget:\n${report}`);
      this.info(`start-up JavaScript within budget:\n${report}`);
    },
  };
}
