// The worker thread that indexes a store's passages within the index's budget and writes the index as text (see
// index-in-worker.ts): cutting a site's words into terms and adding them is seconds at 10,000 pages, and here it takes
// none of the thread that serves chat, which only reads the index back.
import { parentPort } from 'node:worker_threads';
import type { Passage } from '../library/chunk.ts';
import { indexToKeep } from '../library/search-index.ts';
import { runBehindChat } from './behind-chat.ts';
import type { IndexBudget } from './index-budget.ts';

/** The passages come in batches, then the budget, which starts the work. */
export type IndexJob = { passages: Passage[] } | { budget: IndexBudget };
/** The kept text ({@link indexToKeep}), and the log lines of the pages the budget left out. */
export interface IndexAnswer {
  kept: string;
  logs: string[];
}

const port = parentPort;
if (port) {
  runBehindChat();
  const passages: Passage[] = [];
  port.on('message', async (job: IndexJob) => {
    if ('passages' in job) {
      passages.push(...job.passages);
      return;
    }
    const logs: string[] = [];
    const { kept } = await indexToKeep(passages, job.budget, (line) => logs.push(line));
    port.postMessage({ kept, logs } satisfies IndexAnswer);
  });
}
