import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ownThreadId, threadCpuMs } from './thread-cpu.ts';

const onLinux = process.platform === 'linux';

describe.runIf(onLinux)("a thread's CPU time", () => {
  it("counts a worker's own work, read from another thread, and not the time it waits", async () => {
    // The worker says which thread it is, waits 300 ms without working, then works until its own count passes 300 ms;
    // its listener keeps it alive until it is terminated, so that its count can still be read.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const { readFileSync } = require('node:fs');
       parentPort.postMessage(Number.parseInt(readFileSync('/proc/thread-self/stat', 'utf8'), 10));
       parentPort.on('message', () => {
         const started = process.cpuUsage();
         let x = 0;
         while (process.cpuUsage(started).user < 300_000) x += Math.sqrt(x + 1);
         parentPort.postMessage(x);
       });`,
      { eval: true },
    );
    const thread = await new Promise<number>((resolve) => worker.once('message', resolve));
    const before = threadCpuMs(thread) ?? Number.NaN;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const idle = (threadCpuMs(thread) ?? Number.NaN) - before;
    worker.postMessage('work');
    await new Promise((resolve) => worker.once('message', resolve));
    const worked = (threadCpuMs(thread) ?? Number.NaN) - before;
    await worker.terminate();

    expect(thread).not.toBe(ownThreadId());
    expect(idle).toBeLessThan(100);
    // process.cpuUsage counts the whole process, so the worker's own share is at most what it counted.
    expect(worked).toBeGreaterThan(100);
  });

  it('is unknown for a thread that is not there', () => {
    expect(threadCpuMs(2 ** 31 - 1)).toBeUndefined();
    expect(threadCpuMs(undefined)).toBeUndefined();
  });
});
