import { type FileHandle, mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as v from 'valibot';
import { moveAside, writeWhole } from '../../data-files.ts';
import { slicer } from '../library/library.ts';
import { fileLease } from './file-lock.ts';
import {
  applyChanges,
  EMPTY_SNAPSHOT,
  type KnowledgeSnapshot,
  type KnowledgeStore,
  StoreError,
  type SyncChanges,
} from './store-types.ts';
import { SYNC_LEASE_MS, underLease } from './sync-lease.ts';

/**
 * The shape of `store.json`; a newer one is refused. 2: a first line with the sources and the addresses not taken,
 * then one line per page, so that the file is read and written a page at a time, in slices of the thread that serves
 * chat (schema 1, one JSON value, took a whole parse and a whole serialisation of the store at once). 1 is still read.
 */
export const FILE_SCHEMA_VERSION = 2;

const optionalText = v.optional(v.string());
const StorePage = v.object({
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
      description: v.optional(v.string()),
      headings: v.array(v.string()),
      text: v.string(),
      tokens: v.number(),
    }),
  ),
});
const StoreHead = v.object({
  schema: v.number(),
  sources: v.array(
    v.object({ source: v.string(), state: v.string(), syncedAt: v.number(), succeededAt: v.optional(v.number()) }),
  ),
  skipped: v.array(v.object({ source: v.string(), url: v.string(), reason: v.string() })),
});
/** Schema 1: the head and every page in one value. */
const StoreFileV1 = v.object({ ...StoreHead.entries, pages: v.array(StorePage) });

/** Lines are written to the file in pieces of about this many characters. */
const WRITE_PIECE = 1 << 20;

/**
 * The embedded home: one JSON file, `DATA_DIR/knowledge/store.json`, replaced whole by each commit (written beside it,
 * then renamed over it, so a reader or a crash sees the old file or the new one, never half of one). A file that does
 * not parse is moved aside, with a log line naming both, and the store starts empty. The sync lock is a lease in a
 * file (see `fileLease`).
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
    private readonly leaseMs = SYNC_LEASE_MS,
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
    let input: ReturnType<FileHandle['createReadStream']>;
    try {
      input = (await open(this.file)).createReadStream({ encoding: 'utf8' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_SNAPSHOT;
      return this.moveAside(`it cannot be read (${(error as Error).message})`);
    }
    try {
      return { generation, ...(await this.readLines(createInterface({ input, crlfDelay: Infinity }))) };
    } catch (error) {
      if (error instanceof StoreError) throw error;
      return this.moveAside('it is not a knowledge store this server wrote');
    } finally {
      input.destroy();
    }
  }

  /** The store's content from its lines: its head, then a page per line, each parsed and checked in a slice. */
  private async readLines(lines: AsyncIterable<string>): Promise<Omit<KnowledgeSnapshot, 'generation'>> {
    const slice = slicer();
    let head: v.InferOutput<typeof StoreHead> | undefined;
    const pages: v.InferOutput<typeof StorePage>[] = [];
    for await (const line of lines) {
      const json: unknown = JSON.parse(line);
      if (head) pages.push(v.parse(StorePage, json));
      else {
        const schema = (json as { schema?: unknown } | null)?.schema;
        if (typeof schema === 'number' && schema > FILE_SCHEMA_VERSION) {
          throw new StoreError(
            `the knowledge store ${this.file} was written by a newer version (schema ${schema}; this server reads up to ${FILE_SCHEMA_VERSION}): upgrade the server`,
          );
        }
        if (schema === 1) {
          const { schema: _, ...old } = v.parse(StoreFileV1, json);
          return old;
        }
        head = v.parse(StoreHead, json);
      }
      await slice();
    }
    if (!head) throw new Error('the store is empty');
    return { sources: head.sources, skipped: head.skipped, pages };
  }

  async commit(changes: SyncChanges, base?: KnowledgeSnapshot): Promise<void> {
    // The snapshot the changes were made on, when it is still the stored one (its holder has the sync lock): no read.
    const current = base && base.generation === (await this.generation()) ? base : await this.load();
    const { sources, skipped, pages } = applyChanges(current, changes, '');
    await this.replace(this.file, async (write) => {
      const slice = slicer();
      let piece = JSON.stringify({ schema: FILE_SCHEMA_VERSION, sources, skipped });
      for (const page of pages) {
        piece += `\n${JSON.stringify(page)}`;
        if (piece.length >= WRITE_PIECE) {
          await write(piece);
          piece = '';
        }
        await slice();
      }
      await write(piece);
    });
  }

  async loadIndex(): Promise<{ fingerprint: string; data: string } | undefined> {
    const text = await readFile(this.indexFile, 'utf8').catch(() => undefined);
    const newline = text?.indexOf('\n') ?? -1;
    return text === undefined || newline < 0
      ? undefined
      : { fingerprint: text.slice(0, newline), data: text.slice(newline + 1) };
  }

  async saveIndex(fingerprint: string, data: string): Promise<void> {
    await this.replace(this.indexFile, async (write) => {
      await write(`${fingerprint}\n`);
      await write(data);
    });
  }

  /** Writes `file` whole (see `writeWhole`): a failed write (a full disk) leaves the old file and no other behind. */
  private async replace(file: string, content: (write: (text: string) => Promise<unknown>) => Promise<void>) {
    await mkdir(this.folder, { recursive: true });
    await writeWhole(file, content);
  }

  async withSyncLock<T>(work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
    await mkdir(this.folder, { recursive: true });
    return underLease(fileLease(this.lockFile, this.leaseMs, this.log), this.leaseMs, this.home, this.log, work);
  }

  async close(): Promise<void> {}

  /** A store that cannot be trusted: kept for the owner to look at, and the pages read again. */
  private async moveAside(why: string): Promise<KnowledgeSnapshot> {
    await moveAside(this.file, { label: '[knowledge] the store', why, next: 'the pages are read again' }, this.log);
    return EMPTY_SNAPSHOT;
  }
}
