import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const UNIT = fileURLToPath(new URL('./assistant.service', import.meta.url));
const ANALYZE = '/usr/bin/systemd-analyze';

/** The unit's settings, each key with its values in order (a key may be given more than once). */
function settings(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of readFileSync(UNIT, 'utf8').split('\n')) {
    const setting = /^(\w+)=(.*)$/.exec(line);
    if (setting) found.set(setting[1], [...(found.get(setting[1]) ?? []), setting[2]]);
  }
  return found;
}

describe('deploy/assistant.service', () => {
  // systemd's own check where systemd is installed: it exits 0 on an unknown key, but says so, so nothing may be said.
  it.skipIf(!existsSync(ANALYZE))('passes systemd-analyze verify without a word', async () => {
    const { stdout, stderr } = await promisify(execFile)(ANALYZE, ['verify', UNIT]);
    expect(stdout + stderr).toBe('');
  });

  // Under ProtectSystem=strict only what the unit names is writable, and ReadWritePaths= skips (`-`) or refuses a
  // folder that is not there yet, as in a fresh install: the data folder must be one systemd creates for User=.
  it('gives the server a data folder that systemd creates, owned by its user, whatever the project holds', () => {
    const unit = settings();
    const environment = Object.fromEntries(
      (unit.get('Environment') ?? []).map((value) => value.split('=', 2) as [string, string]),
    );
    expect(unit.get('ProtectSystem')).toEqual(['strict']);
    expect(unit.get('StateDirectory')).toHaveLength(1);
    expect(environment.DATA_DIR).toBe(`/var/lib/${unit.get('StateDirectory')?.[0]}`);
    expect(unit.get('ReadWritePaths') ?? []).toEqual([]);
  });

  it('runs what npm start runs, with Node itself rather than npm at a path it assumed', () => {
    const start = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start;
    expect(settings().get('ExecStart')).toEqual([start.replace(/^exec /, '')]);
    expect(start).toMatch(/^exec node /);
  });
});
