import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * Adds the variables of `.env` files in `dir` to `env` without overriding what is already set, in Vite's order for
 * `mode` (`.env.[mode].local`, `.env.[mode]`, `.env.local`, `.env`), so `npm start` reads the same `.env` as
 * `npm run dev`. Returns the files read.
 */
export function loadDotEnvFiles(env: Record<string, string | undefined>, dir: string, mode = 'production'): string[] {
  const read: string[] = [];
  for (const name of [`.env.${mode}.local`, `.env.${mode}`, '.env.local', '.env']) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    read.push(name);
    for (const [key, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
      if (env[key] === undefined) env[key] = value;
    }
  }
  return read;
}
