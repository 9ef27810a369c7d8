// The worker thread that cuts a store's passages into index terms, within the index's budget (see index-in-worker.ts):
// stemming a site's words is most of indexing's time, and here it takes none of the thread that serves chat.
import { parentPort } from 'node:worker_threads';
import type { Passage } from './chunk.ts';
import type { IndexBudget } from './index-budget.ts';
import { keptTerms } from './search-index.ts';

/** The passages come in batches, then the budget, which starts the work. */
export type IndexJob = { passages: Passage[] } | { budget: IndexBudget };
/** The kept text ({@link keptTerms}), and the log lines of the pages the budget left out. */
export interface IndexAnswer {
  kept: string;
  logs: string[];
}

const port = parentPort;
if (port) {
  const passages: Passage[] = [];
  port.on('message', async (job: IndexJob) => {
    if ('passages' in job) {
      passages.push(...job.passages);
      return;
    }
    const logs: string[] = [];
    const kept = await keptTerms(passages, job.budget, (line) => logs.push(line));
    port.postMessage({ kept, logs } satisfies IndexAnswer);
  });
}
