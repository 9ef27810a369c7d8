// The files the server keeps under DATA_DIR (the owner's counts, the knowledge store, its index and sync lock) are
// written and set aside in one way, here, whichever room keeps them.
import { randomUUID } from 'node:crypto';
import { link, open, rename, rm } from 'node:fs/promises';

/**
 * Writes `file` whole, in the pieces `content` gives, then renames it over the old: a reader or a crash sees the old
 * file or the new one. The new file is created exclusively under a name of its own (`O_EXCL`: a link planted there is
 * never followed, and two writers never share one) and readable by the server's user only (mode 600). A write that
 * fails (a full disk, a read-only folder) removes what it wrote, and throws. With `exclusive`, an existing `file` is
 * kept and the answer is `false` (a lock: the whole file appears at once, or not at all).
 */
export async function writeWhole(
  file: string,
  content: (write: (text: string) => Promise<unknown>) => Promise<void>,
  { exclusive = false } = {},
): Promise<boolean> {
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      // `writeFile` on a handle writes all of `text` from where the last ended (`write` may write only part of it).
      await content((text) => handle.writeFile(text));
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!exclusive) {
      await rename(temporary, file);
      return true;
    }
    try {
      await link(temporary, file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  } finally {
    await rm(temporary, { force: true }).catch(() => {});
  }
}

/** What a set-aside file's line says: `<label> <file> was moved aside to <aside>: <why>; <next>`. */
export interface AsideLine {
  /** The log's prefix and the file's name for people: `[feedback] the counts file`. */
  label: string;
  why: string;
  next: string;
}

/**
 * Sets aside a kept file this server cannot read (`<file>.unreadable-<time>`), for the owner to look at, with one line
 * naming both paths; the caller then starts afresh. Answers where it went.
 */
export async function moveAside(file: string, line: AsideLine, log: (line: string) => void): Promise<string> {
  const aside = `${file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await rename(file, aside);
  log(`${line.label} ${file} was moved aside to ${aside}: ${line.why}; ${line.next}`);
  return aside;
}
