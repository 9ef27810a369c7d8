import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATS_MAX_DAYS } from '../../contract/feedback.ts';

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

interface CountFile {
  version: 1;
  secret: string;
  days: Record<string, DayCounts>;
  votes: Record<string, { vote: string; expiresAt: number }>;
}

/**
 * The counts of one server, in memory and in `<dataDir>/feedback/counts.json`: written (to a new file, then renamed
 * over the old, so that a crash mid-write leaves the old one whole) within a second of a change, and on `close`.
 */
export class FileCountStore implements CountStore {
  private readonly path: string;
  private readonly data: CountFile;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(dataDir: string) {
    const folder = join(dataDir, 'feedback');
    mkdirSync(folder, { recursive: true });
    this.path = join(folder, 'counts.json');
    this.data = readCountFile(this.path) ?? {
      version: 1,
      secret: randomBytes(32).toString('base64url'),
      days: {},
      votes: {},
    };
    // The secret is kept before any token is signed with it: a restart must still take the tokens it gave.
    this.write();
  }

  async add(day: string, fields: DayCounts): Promise<void> {
    this.data.days[day] ??= {};
    const counts = this.data.days[day];
    for (const [field, amount] of Object.entries(fields)) counts[field] = (counts[field] ?? 0) + amount;
    this.changed();
  }

  async swapVote(id: string, vote: string, expiresAt: number): Promise<string | undefined> {
    const previous = this.data.votes[id];
    this.data.votes[id] = { vote, expiresAt };
    this.changed();
    return previous && previous.expiresAt > Date.now() ? previous.vote : undefined;
  }

  async read(days: readonly string[]): Promise<Record<string, DayCounts>> {
    return Object.fromEntries(days.flatMap((day) => (this.data.days[day] ? [[day, { ...this.data.days[day] }]] : [])));
  }

  async secret(): Promise<string> {
    return this.data.secret;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
  }

  private changed(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.write();
    }, FLUSH_EVERY_MS);
    this.timer.unref();
  }

  private write(): void {
    const now = Date.now();
    const oldest = new Date(now - KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
    for (const day of Object.keys(this.data.days)) if (day < oldest) delete this.data.days[day];
    for (const [id, { expiresAt }] of Object.entries(this.data.votes)) if (expiresAt <= now) delete this.data.votes[id];
    const next = `${this.path}.next`;
    writeFileSync(next, JSON.stringify(this.data), { mode: 0o600 });
    renameSync(next, this.path);
  }
}

/** The kept file, or `undefined` when there is none yet; a file that is not ours stops the server rather than lose it. */
function readCountFile(path: string): CountFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const data = JSON.parse(text) as Partial<CountFile>;
  if (data.version !== 1 || typeof data.secret !== 'string' || !data.days || !data.votes) {
    throw new Error(`${path} is not a counts file this server can read: move it away to start afresh`);
  }
  return data as CountFile;
}
