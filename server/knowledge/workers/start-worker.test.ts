import { once } from 'node:events';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { ExtractAnswer, ExtractJob } from './html-worker.ts';
import { startWorker, startWorkersFrom } from './start-worker.ts';

// Every other Node test starts the workers from the run's bundle (testing/node-setup.ts). The dev server and
// `npm run knowledge -- sync` start them from the TypeScript source through tsx: that path is checked here.
afterEach(() => startWorkersFrom(inject('knowledgeBundle')));

describe('a worker started from the source, through tsx', () => {
  it('says it is ready, then reads a page', async () => {
    startWorkersFrom(undefined);
    const worker = startWorker('html-worker', { workerData: { maxNodes: 1_000, maxTerms: 1_000 } });
    try {
      // The answer to the page, whenever it comes: on a busy machine the worker, at the lowest priority, takes seconds.
      const answered = new Promise<ExtractAnswer>((resolve) =>
        worker.on('message', (answer: ExtractAnswer) => {
          if ('id' in answer && answer.id === 1) resolve(answer);
        }),
      );
      const [ready] = (await once(worker, 'message')) as [ExtractAnswer];
      expect(ready).toMatchObject({ ready: true });
      const job: ExtractJob = {
        id: 1,
        bytes: new TextEncoder().encode(
          '<html><head><title>Opening hours</title></head><body><h1>Opening hours</h1><p>We open at eight on weekdays and at nine on Saturdays.</p></body></html>',
        ),
        contentType: 'text/html; charset=utf-8',
        address: 'https://shop.example/hours',
        language: 'en',
      };
      worker.postMessage(job);
      expect(await answered).toMatchObject({ id: 1, draft: { title: 'Opening hours' } });
    } finally {
      await worker.terminate();
    }
  });
});
