import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 (free when asked: for programs that must be told a port rather than pick one). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface RedisServer {
  /** `redis://127.0.0.1:PORT`; add `/N` for database N, so that tests sharing one server keep their keys apart. */
  url: string;
  /** Stops the server (SIGKILL: as a crash or a lost host looks to its clients). */
  stop(): Promise<void>;
  /**
   * Starts it again on the same port, empty; nothing while it runs. (A second server on the port failed to bind, and
   * the first, no longer known here, outlived the test run: `redis-faults.test.ts` starts it in a `finally` too.)
   */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as in a stall. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT), with whatever was sent to it meanwhile. */
  resume(): void;
}

/**
 * A real `redis-server` (Debian's package) for tests, on a loopback port, keeping nothing on disk unless asked: with
 * `dir`, a `SAVE` writes `dir/dump.rdb` uncompressed, so that a test can search everything Redis held. `.ci/run`
 * installs it; `REDIS_SERVER_PATH` points elsewhere if needed.
 */
export async function startRedisServer({ dir }: { dir?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    const binary = process.env.REDIS_SERVER_PATH ?? 'redis-server';
    const saving = dir ? ['--dir', dir, '--rdbcompression', 'no'] : [];
    const options = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...saving];
    const started = spawn(binary, options, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      started.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Ready to accept connections')) resolve();
      });
      started.once('error', (error) => reject(new Error(`redis-server could not start (${error.message})`)));
      started.once('exit', (code) => reject(new Error(`redis-server exited (code ${code}):\n${output}`)));
    });
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
}
