// `npm pack --workspace packages/react`, as docs/react.md gives it, writes its tarball into the project's folder: the
// tarball must not show up as a file to commit.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);
const { name, version } = JSON.parse(readFileSync(new URL('packages/react/package.json', ROOT), 'utf8'));
/** npm's name for the tarball: the scope's `@` dropped, its `/` a dash. */
const TARBALL = `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;

const inGit = (() => {
  try {
    return (
      execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: ROOT, stdio: 'pipe' }).toString().trim() ===
      'true'
    );
  } catch {
    return false;
  }
})();

describe('the packed tarball', () => {
  it('is the name docs/react.md gives', () => {
    expect(readFileSync(new URL('docs/react.md', ROOT), 'utf8')).toContain(`writes ${TARBALL}`);
  });

  // A copy of the project without its git folder has nothing to ignore.
  it.skipIf(!inGit)('is ignored by git where npm pack writes it', () => {
    expect(() => execFileSync('git', ['check-ignore', '-q', '--no-index', TARBALL], { cwd: ROOT })).not.toThrow();
  });
});
