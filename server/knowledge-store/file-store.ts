import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import {
  applyChanges,
  EMPTY_SNAPSHOT,
  type KnowledgeSnapshot,
  type KnowledgeStore,
  StoreError,
  type SyncChanges,
} from './store-types.ts';

/** The shape of `store.json`; a newer one is refused, an older one would be read by a migration here. */
export const FILE_SCHEMA_VERSION = 1;

const optionalText = v.optional(v.string());
const StoreFile = v.object({
  schema: v.number(),
  sources: v.array(v.object({ source: v.string(), state: v.string(), syncedAt: v.number() })),
  pages: v.array(
    v.object({
      source: v.string(),
      address: v.string(),
      url: v.string(),
      title: v.string(),
      language: v.string(),
      etag: optionalText,
      lastModified: optionalText,
      textHash: v.string(),
      mtimeMs: v.optional(v.number()),
      fetchedAt: v.number(),
      changedAt: v.number(),
      passages: v.array(
        v.object({
          url: v.optional(v.string()),
          keywords: v.optional(v.string()),
          headings: v.array(v.string()),
          text: v.string(),
          tokens: v.number(),
        }),
      ),
    }),
  ),
  skipped: v.array(v.object({ source: v.string(), url: v.string(), reason: v.string() })),
});

/** Whether the process `pid` still runs (on this host: a lock file names its host too). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded home: one JSON file, `DATA_DIR/knowledge/store.json`, replaced whole by each commit (written beside it,
 * then renamed over it, so a reader or a crash sees the old file or the new one, never half of one). A file that does
 * not parse is moved aside, with a log line naming both, and the store starts empty. The sync lock is a file holding
 * its holder's pid and host; a lock whose process is gone is taken over.
 */
export class FileStore implements KnowledgeStore {
  readonly home: string;
  private readonly folder: string;
  private readonly file: string;
  private readonly lockFile: string;
  private readonly indexFile: string;

  constructor(
    dataDir: string,
    private readonly log: (line: string) => void,
  ) {
    this.folder = join(dataDir, 'knowledge');
    this.file = join(this.folder, 'store.json');
    this.lockFile = join(this.folder, 'sync.lock');
    this.indexFile = join(this.folder, 'index.json');
    this.home = `files in ${this.folder}`;
  }

  async generation(): Promise<string> {
    try {
      const { ino, mtimeMs, size } = await stat(this.file);
      return `${ino}:${mtimeMs}:${size}`;
    } catch {
      return EMPTY_SNAPSHOT.generation;
    }
  }

  async load(): Promise<KnowledgeSnapshot> {
    const generation = await this.generation();
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_SNAPSHOT;
      return this.moveAside(`it cannot be read (${(error as Error).message})`);
    }
    let parsed: v.InferOutput<typeof StoreFile>;
    try {
      const json: unknown = JSON.parse(text);
      const schema = (json as { schema?: unknown } | null)?.schema;
      if (typeof schema === 'number' && schema > FILE_SCHEMA_VERSION) {
        throw new StoreError(
          `the knowledge store ${this.file} was written by a newer version (schema ${schema}; this server reads up to ${FILE_SCHEMA_VERSION}): upgrade the server`,
        );
      }
      parsed = v.parse(StoreFile, json);
    } catch (error) {
      if (error instanceof StoreError) throw error;
      return this.moveAside('it is not a knowledge store this server wrote');
    }
    const { schema: _, ...snapshot } = parsed;
    return { generation, ...snapshot };
  }

  async commit(changes: SyncChanges): Promise<void> {
    const next = applyChanges(await this.load(), changes, '');
    const { generation: _, ...content } = next;
    await this.replace(this.file, JSON.stringify({ schema: FILE_SCHEMA_VERSION, ...content }));
  }

  async loadIndex(): Promise<{ fingerprint: string; data: string } | undefined> {
    const text = await readFile(this.indexFile, 'utf8').catch(() => undefined);
    const newline = text?.indexOf('\n') ?? -1;
    return text === undefined || newline < 0
      ? undefined
      : { fingerprint: text.slice(0, newline), data: text.slice(newline + 1) };
  }

  async saveIndex(fingerprint: string, data: string): Promise<void> {
    await this.replace(this.indexFile, `${fingerprint}\n${data}`);
  }

  /** Writes `file` whole beside it, then renames it over: a reader or a crash sees the old file or the new one. */
  private async replace(file: string, text: string): Promise<void> {
    await mkdir(this.folder, { recursive: true });
    // Its own name per write: two stores on one folder in one process (or two processes) never write the same file.
    const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  }

  async withSyncLock<T>(work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
    await mkdir(this.folder, { recursive: true });
    if (!(await this.takeLock())) return { ran: false };
    try {
      return { ran: true, result: await work() };
    } finally {
      await rm(this.lockFile, { force: true });
    }
  }

  async close(): Promise<void> {}

  /** Creates the lock file, or takes it over from a process of this host that no longer runs. */
  private async takeLock(): Promise<boolean> {
    const holder = `${process.pid} ${hostname()}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(this.lockFile, holder, { flag: 'wx' });
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const [pid, host] = (await readFile(this.lockFile, 'utf8').catch(() => '')).split(' ');
      if (host === hostname() && alive(Number(pid))) return false;
      if (host !== undefined && host !== hostname()) return false;
      await rm(this.lockFile, { force: true });
    }
    return false;
  }

  /** A store that cannot be trusted: kept for the owner to look at, and the pages read again. */
  private async moveAside(why: string): Promise<KnowledgeSnapshot> {
    const aside = `${this.file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(this.file, aside);
    this.log(`[knowledge] the store ${this.file} was moved aside to ${aside}: ${why}; the pages are read again`);
    return EMPTY_SNAPSHOT;
  }
}
