// The files the server keeps under DATA_DIR (the owner's counts, the knowledge store, its index and sync lock) are
// written and set aside in one way, here, whichever room keeps them.
import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/**
 * Writes `file` whole, in the pieces `content` gives, then renames it over the old: a reader or a crash sees the old
 * file or the new one. The new file is created exclusively under a name of its own (`O_EXCL`: a link planted there is
 * never followed, and two writers never share one) and readable by the server's user only (mode 600). A write that
 * fails (a full disk, a read-only folder) removes what it wrote, and throws.
 */
export async function writeWhole(
  file: string,
  content: (write: (text: string) => Promise<unknown>) => Promise<void>,
): Promise<void> {
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
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
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
