import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const UNIT = fileURLToPath(new URL('./assistant.service', import.meta.url));
const ANALYZE = '/usr/bin/systemd-analyze';

describe('deploy/assistant.service', () => {
  // systemd's own check where systemd is installed: it exits 0 on an unknown key, but says so, so nothing may be said.
  it.skipIf(!existsSync(ANALYZE))('passes systemd-analyze verify without a word', async () => {
    const { stdout, stderr } = await promisify(execFile)(ANALYZE, ['verify', UNIT]);
    expect(stdout + stderr).toBe('');
  });
});
