import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));

describe('npm ci on a fresh clone', () => {
  // npm 11 blocks a dependency's install script unless package.json's `allowScripts` names it, and ends the install
  // with a warning naming each one it skipped: a warning an owner could only act on by editing this project.
  it('has every install script the lockfile holds declared in allowScripts, and nothing else', () => {
    const { allowScripts } = read('package.json') as { allowScripts: Record<string, boolean> };
    const { packages } = read('package-lock.json') as {
      packages: Record<string, { hasInstallScript?: boolean; link?: boolean }>;
    };
    const withScripts = Object.entries(packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));

    expect(Object.keys(allowScripts).sort()).toEqual([...new Set(withScripts)].sort());
  });
});
