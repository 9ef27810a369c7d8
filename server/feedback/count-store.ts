import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { STATS_MAX_DAYS } from '../../contract/feedback.ts';
import { moveAside, writeWhole } from '../data-files.ts';

/** One day's counts, by field (`messages`, `down_reason:wrong`, `down_source:<address>`, `first_piece:3`…). */
export type DayCounts = Record<string, number>;

/**
 * Where the owner's counts live: a file under `DATA_DIR` for one server, or Redis shared by the replicas. Only numbers
 * by day and field, the votes of replies still open to a change (by the reply's random id, until its token expires),
 * and the secret that signs reply tokens: never a visitor's text, address or anything else.
 */
export interface CountStore {
  /** Adds to a day's fields. */
  add(day: string, fields: DayCounts): Promise<void>;
  /**
   * Records `vote` ("up", "down" or "down:<reason>") as reply `id`'s, until `expiresAt` (ms since the epoch); returns
   * the vote it replaces, so that its counts can be taken back. One atomic step: replicas never both see the same one.
   */
  swapVote(id: string, vote: string, expiresAt: number): Promise<string | undefined>;
  /** The counts of each of `days` (a day with none is left out). */
  read(days: readonly string[]): Promise<Record<string, DayCounts>>;
  /** The secret for reply tokens: made by whichever server asks first, then the same for all. */
  secret(): Promise<string>;
  close(): Promise<void>;
}

/** Counts outlive the last day shown by one, so that a day never half-expires while it is on the owner's page. */
export const KEEP_DAYS = STATS_MAX_DAYS + 1;
const DAY_MS = 86_400_000;
/** How often the file is written when something has changed: a crash loses at most this much. */
export const FLUSH_EVERY_MS = 1_000;
/** How long after a failed write (a full disk, a read-only folder) the next is tried. */
export const RETRY_WRITE_MS = 10_000;

interface CountFile {
  version: 1;
  secret: string;
  days: Record<string, DayCounts>;
  votes: Record<string, { vote: string; expiresAt: number }>;
}

/**
 * The counts of one server, in memory and in `<dataDir>/feedback/counts.json`: written whole (see `writeWhole`) within
 * a second of a change, and on `close`. A write that fails is said once and tried again every `retryMs`, the counts
 * staying in memory meanwhile: a full or read-only disk never stops chat. A file that cannot be read is moved aside.
 */
export class FileCountStore implements CountStore {
  private readonly folder: string;
  private readonly path: string;
  private readonly data: Promise<CountFile>;
  /** Whether the secret is on disk: a token is signed only with a secret that a restart will still have. */
  private secretKept = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The writes, one after another: a slow write is never overtaken by a later one with older counts. */
  private writing: Promise<void> = Promise.resolve();
  /** Why the last write failed, until one succeeds: said once per outage. */
  private failure: string | undefined;

  constructor(
    dataDir: string,
    private readonly log: (line: string) => void = (line) => console.warn(line),
    private readonly retryMs = RETRY_WRITE_MS,
  ) {
    this.folder = join(dataDir, 'feedback');
    this.path = join(this.folder, 'counts.json');
    this.data = this.readFile();
    // The secret is kept before any token is signed with it: a restart must still take the tokens it gave.
    this.flush();
  }

  async add(day: string, fields: DayCounts): Promise<void> {
    const data = await this.data;
    data.days[day] ??= {};
    const counts = data.days[day];
    for (const [field, amount] of Object.entries(fields)) counts[field] = (counts[field] ?? 0) + amount;
    this.schedule(FLUSH_EVERY_MS);
  }

  async swapVote(id: string, vote: string, expiresAt: number): Promise<string | undefined> {
    const data = await this.data;
    const previous = data.votes[id];
    data.votes[id] = { vote, expiresAt };
    this.schedule(FLUSH_EVERY_MS);
    return previous && previous.expiresAt > Date.now() ? previous.vote : undefined;
  }

  async read(days: readonly string[]): Promise<Record<string, DayCounts>> {
    const data = await this.data;
    return Object.fromEntries(days.flatMap((day) => (data.days[day] ? [[day, { ...data.days[day] }]] : [])));
  }

  async secret(): Promise<string> {
    const data = await this.data;
    await this.writing;
    if (!this.secretKept) throw new Error(`the feedback secret is not written to ${this.path} yet`);
    return data.secret;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private schedule(delay: number): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delay);
    this.timer.unref();
  }

  /** Writes the counts as they are now, after any write under way. Never rejects: a failure is said and retried. */
  private flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const data = await this.data;
      const now = Date.now();
      const oldest = new Date(now - KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
      for (const day of Object.keys(data.days)) if (day < oldest) delete data.days[day];
      for (const [id, { expiresAt }] of Object.entries(data.votes)) if (expiresAt <= now) delete data.votes[id];
      const text = JSON.stringify(data);
      try {
        await mkdir(this.folder, { recursive: true });
        await writeWhole(this.path, async (write) => {
          await write(text);
        });
      } catch (error) {
        if (this.failure === undefined) {
          this.log(
            `[feedback] the counts could not be written to ${this.path} (${(error as Error).message}): ` +
              `they are kept in memory and written again every ${this.retryMs / 1000} s`,
          );
        }
        this.failure = (error as Error).message;
        this.schedule(this.retryMs);
        return;
      }
      this.secretKept = true;
      if (this.failure !== undefined) this.log(`[feedback] the counts are written to ${this.path} again`);
      this.failure = undefined;
    });
    return this.writing;
  }

  /** The kept counts; none yet gives new ones, and a file this server cannot read is moved aside for new ones. */
  private async readFile(): Promise<CountFile> {
    const fresh = (): CountFile => ({ version: 1, secret: randomBytes(32).toString('base64url'), days: {}, votes: {} });
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fresh();
      return this.setAside(`it cannot be read (${(error as Error).message})`, fresh);
    }
    let data: Partial<CountFile> | null;
    try {
      data = JSON.parse(text) as Partial<CountFile> | null;
    } catch (error) {
      return this.setAside(`it is not JSON (${(error as Error).message})`, fresh);
    }
    if (data?.version !== 1 || typeof data.secret !== 'string' || !data.days || !data.votes) {
      return this.setAside(`it is not a counts file this server wrote (version ${data?.version})`, fresh);
    }
    this.secretKept = true;
    return data as CountFile;
  }

  private async setAside(why: string, fresh: () => CountFile): Promise<CountFile> {
    const line = { label: '[feedback] the counts file', why, next: 'the counts start afresh' };
    await moveAside(this.path, line, this.log).catch((error: Error) =>
      this.log(`[feedback] the counts file ${this.path} cannot be read (${why}) nor moved aside (${error.message})`),
    );
    return fresh();
  }
}
