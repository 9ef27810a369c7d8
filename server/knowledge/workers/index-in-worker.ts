import { once } from 'node:events';
import type { Passage } from '../library/chunk.ts';
import { slicer } from '../library/slice.ts';
import type { IndexBudget } from './index-budget.ts';
import type { IndexAnswer, IndexJob } from './index-worker.ts';
import { startWorker } from './start-worker.ts';

/** Passages sent to the worker in one message: a copy of some hundreds of KB, far under a slice. */
const BATCH = 200;

/**
 * The kept text of `passages` within `budget` (what `indexToKeep` gives), made in a worker thread of its own, which
 * ends with it: the server's thread only sends the passages, in slices, and reads the index back (`indexFromKept`).
 * The budget's log lines come back to `log`. It rejects when the worker fails or ends without an answer.
 */
export async function keptInWorker(
  passages: readonly Passage[],
  budget: IndexBudget,
  log: (line: string) => void,
): Promise<string> {
  const worker = startWorker('index-worker', {});
  try {
    const ended = once(worker, 'exit').then(([code]) => {
      throw new Error(`the index worker ended (code ${code})`);
    });
    const answered = once(worker, 'message') as Promise<[IndexAnswer]>;
    const slice = slicer();
    for (let at = 0; at < passages.length; at += BATCH) {
      worker.postMessage({ passages: passages.slice(at, at + BATCH) } satisfies IndexJob);
      await slice();
    }
    const { maxTextChars, maxPassages, maxTerms, maxPageTerms } = budget;
    worker.postMessage({ budget: { maxTextChars, maxPassages, maxTerms, maxPageTerms } } satisfies IndexJob);
    const [answer] = await Promise.race([answered, ended]);
    for (const line of answer.logs) log(line);
    return answer.kept;
  } finally {
    await worker.terminate();
  }
}
