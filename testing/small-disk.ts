import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** The mounted folder: a DATA_DIR whose disk can be filled, freed and made read-only. */
  path: string;
  /** Fills every free byte but `leaveKilobytes` (with `filler`): a write larger than what is left fails with ENOSPC. */
  fill(leaveKilobytes?: number): void;
  /** Removes the filler: there is room again. */
  free(): void;
  /** Remounts it read-only (writes fail with EROFS), or writable again. */
  readOnly(on: boolean): void;
  remove(): void;
}

/**
 * A real, tiny file system (a tmpfs of `kilobytes`) for the faults of a full or read-only disk: mounting needs root,
 * which the CI machine and the test machines are (`.ci/run` installs packages with apt-get). Root ignores file modes,
 * so a folder without write permission is no fault for it: a full or read-only mount is.
 */
export function smallDisk(kilobytes = 512): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kilobytes}k,mode=0700`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    throw new Error(`a small disk needs root to mount a tmpfs: ${(error as Error).message}`);
  }
  const filler = join(path, 'filler');
  const remount = (mode: string) => execFileSync('mount', ['-o', `remount,${mode}`, path], { stdio: 'pipe' });
  return {
    path,
    fill(leaveKilobytes = 0) {
      const { bavail, bsize } = statfsSync(path);
      try {
        writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - leaveKilobytes * 1024)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    },
    free: () => rmSync(filler, { force: true }),
    readOnly: (on) => remount(on ? 'ro' : 'rw'),
    remove() {
      execFileSync('umount', [path], { stdio: 'pipe' });
      rmSync(path, { recursive: true, force: true });
    },
  };
}
