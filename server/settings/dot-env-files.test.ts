import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDotEnvFiles } from './dot-env-files.ts';
import type { Env } from './env-values.ts';

describe('loadDotEnvFiles', () => {
  it("reads .env files in Vite's order without overriding the environment", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'env-files-'));
    try {
      await writeFile(join(dir, '.env'), 'LLM_MODEL=from-env-file\nLLM_API_KEY=from-env-file\nPORT=1\n');
      await writeFile(join(dir, '.env.production.local'), 'LLM_MODEL=from-production-local\n');
      const env: Env = { PORT: '4173' };
      const read = loadDotEnvFiles(env, dir);

      expect(read).toEqual(['.env.production.local', '.env']);
      expect(env).toEqual({ PORT: '4173', LLM_MODEL: 'from-production-local', LLM_API_KEY: 'from-env-file' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
