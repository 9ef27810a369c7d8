import type { Worker } from 'node:worker_threads';
import type { ExtractAnswer, ExtractJob } from '../workers/html-worker.ts';
import { startWorker } from '../workers/start-worker.ts';
import { threadCpuMs } from '../workers/thread-cpu.ts';
import type { PageDraft } from './page.ts';

/** What one page's extraction may cost; every one has a default in `KNOWLEDGE_DEFAULTS`. */
export interface ExtractLimits {
  /**
   * The time one page may take in the worker; past it the worker is ended (and replaced for the next page). On Linux
   * it is the worker's CPU time, since at the lowest priority it waits behind everything else on a busy machine; its
   * wall time is then held to {@link WAIT_FACTOR} times as much.
   */
  extractTimeoutMs: number;
  /** Elements one page may open; a page with more is skipped before it is parsed. */
  maxPageNodes: number;
  /** The worker's heap: a page that needs more ends the worker, not the server. */
  extractHeapMb: number;
  /** Distinct index terms one page may bring (the index's own budget for a page); a page with more is skipped. */
  maxPageTerms: number;
}

/** Reads HTML pages one at a time in a worker thread; a page that fails or is refused is a string saying why. */
export interface HtmlExtractor {
  /** The page whose body is `bytes`, in the charset `contentType` names, and in `language` when it does not say. */
  extract(bytes: Uint8Array, contentType: string, address: string, language: string): Promise<PageDraft | string>;
  /** Ends the worker; pages asked for afterwards start a new one. */
  close(): Promise<void>;
}

/** How many times its time limit a page's extraction may wait for the CPU, when its CPU time is what counts. */
export const WAIT_FACTOR = 10;

const startExtractor = (limits: ExtractLimits) =>
  startWorker('html-worker', {
    workerData: { maxNodes: limits.maxPageNodes, maxTerms: limits.maxPageTerms },
    resourceLimits: { maxOldGenerationSizeMb: limits.extractHeapMb },
  });

interface Pending {
  job: ExtractJob;
  settle: (result: PageDraft | string) => void;
}

/**
 * From now, how long a page's extraction may still go on (0: its time is up): its thread's CPU time where the thread's
 * clock can be read, else the time waited, and never more than `WAIT_FACTOR` times the limit waited.
 */
function timeLeft(limit: number, thread: number | undefined): () => number {
  const cpuAtStart = threadCpuMs(thread);
  const startedAt = performance.now();
  return () => {
    const waited = performance.now() - startedAt;
    const cpu = cpuAtStart === undefined ? undefined : (threadCpuMs(thread) ?? Infinity) - cpuAtStart;
    const used = cpu ?? waited;
    return used < limit && waited < limit * WAIT_FACTOR ? Math.min(limit - used, limit * WAIT_FACTOR - waited) : 0;
  };
}

/** An extractor with one worker, started on the first page; a page past its time ends it, the next page starts another. */
export function htmlExtractor(limits: ExtractLimits): HtmlExtractor {
  const queue: Pending[] = [];
  let worker: Worker | undefined;
  let ready = false;
  let thread: number | undefined;
  let current: Pending | undefined;
  let timer: NodeJS.Timeout | undefined;
  let nextId = 0;

  const finish = (result: PageDraft | string) => {
    clearTimeout(timer);
    current?.settle(result);
    current = undefined;
  };
  const end = (reason: string) => {
    const ended = worker;
    worker = undefined;
    ready = false;
    finish(reason);
    void ended?.terminate();
  };
  const pump = () => {
    if (current || queue.length === 0) return;
    if (!worker) {
      const started = startExtractor(limits);
      worker = started;
      started.unref();
      started.on('message', (answer: ExtractAnswer) => {
        if ('ready' in answer) [ready, thread] = [true, answer.thread];
        else if (answer.id === current?.job.id) finish('draft' in answer ? answer.draft : answer.refused);
        pump();
      });
      started.on('error', (error) => {
        if (worker !== started) return;
        const reason = `its extraction failed (${error.message})`;
        // A worker that never became ready fails every page waiting for it, not only the first.
        if (!ready) for (const waiting of queue.splice(0)) waiting.settle(reason);
        end(reason);
        pump();
      });
      started.on('exit', () => {
        if (worker !== started) return;
        end('its extraction ended the worker');
        pump();
      });
      return;
    }
    if (!ready) return;
    current = queue.shift();
    if (!current) return;
    const timeLimit = limits.extractTimeoutMs;
    const left = timeLeft(timeLimit, thread);
    // Checked when the limit's time has passed, then again when the CPU time still allowed could have been used.
    const check = () => {
      const wait = left();
      if (wait > 0) timer = setTimeout(check, wait);
      else {
        end(`its extraction took more than ${timeLimit} ms`);
        pump();
      }
    };
    timer = setTimeout(check, timeLimit);
    worker.postMessage(current.job);
  };

  return {
    extract: (bytes, contentType, address, language) =>
      new Promise((settle) => {
        queue.push({ job: { id: nextId++, bytes, contentType, address, language }, settle });
        pump();
      }),
    close: async () => {
      const ended = worker;
      worker = undefined;
      ready = false;
      await ended?.terminate();
    },
  };
}
