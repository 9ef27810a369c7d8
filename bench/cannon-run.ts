// Bench scripts in processes of their own, for `npm run load` and `npm run bench:feedback`: the load generator
// (bench/cannon.ts) and the fake upstream must not share an event loop with each other or with what they measure.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ROOT_DIR } from '../testing/production-app.ts';
import type { CannonOptions, CannonSummary } from './cannon.ts';

/**
 * Runs a bench script in its own process: resolves at its first output (an address), or at its exit (a result). With
 * `until`, the script is sent SIGINT when that settles (the cannon then stops and answers).
 */
export async function spawnScript(script: string, args: string[], untilExit = false, until?: Promise<unknown>) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT_DIR,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  void until?.finally(() => child.kill('SIGINT'));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = once(child, 'close').then(([code]) => {
    if (untilExit && code === 0) return;
    throw new Error(`${script} ${args.join(' ')} exited (code ${code})`);
  });
  await (untilExit ? exited : Promise.race([once(child.stdout, 'data'), exited]));
  return { output: output.trim(), stop: () => child.kill('SIGTERM') };
}

// JSON has no NaN: a latency of no responses at all comes back as null, and must not count as 0 ms.
// With `until`, the cannon fires until that settles, however long `seconds` is.
export const cannon = async (options: CannonOptions, until?: Promise<unknown>) =>
  JSON.parse((await spawnScript('bench/cannon.ts', [JSON.stringify(options)], true, until)).output, (_key, value) =>
    value === null ? Number.NaN : value,
  ) as CannonSummary;
