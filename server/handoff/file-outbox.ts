import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { moveAside, writeWhole } from '../data-files.ts';
import type { Outbox, OutboxEntry } from './outbox-types.ts';

/**
 * The outbox of one server: a file per message in `<dataDir>/handoff/outbox/` (written whole, mode 600), deleted once
 * delivered; an undeliverable one is moved to `<dataDir>/handoff/undeliverable/`. Claims are this process's: a data
 * folder belongs to one server.
 */
export class FileOutbox implements Outbox {
  readonly home: string;
  private readonly folder: string;
  private readonly aside: string;
  private readonly claims = new Map<string, number>();

  constructor(
    dataDir: string,
    private readonly log: (line: string) => void,
  ) {
    this.folder = join(dataDir, 'handoff', 'outbox');
    this.aside = join(dataDir, 'handoff', 'undeliverable');
    this.home = this.folder;
  }

  async put(entry: OutboxEntry): Promise<void> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    await this.write(entry);
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    const due: OutboxEntry[] = [];
    for (const name of await this.names()) {
      if (due.length >= limit) break;
      const id = name.slice(0, -'.json'.length);
      if ((this.claims.get(id) ?? 0) > now) continue;
      const entry = await this.read(id);
      if (!entry || entry.nextAt > now) continue;
      this.claims.set(id, now + leaseMs);
      due.push(entry);
    }
    return due;
  }

  async update(entry: OutboxEntry): Promise<void> {
    await this.write(entry);
    this.claims.delete(entry.id);
  }

  async remove(id: string): Promise<void> {
    await rm(this.path(id), { force: true });
    this.claims.delete(id);
  }

  async setAside(entry: OutboxEntry): Promise<string> {
    await mkdir(this.aside, { recursive: true, mode: 0o700 });
    const target = join(this.aside, `${entry.id}.json`);
    await writeWhole(target, (write) => write(JSON.stringify(entry)).then(() => undefined));
    await this.remove(entry.id);
    return target;
  }

  async size(): Promise<number> {
    return (await this.names()).length;
  }

  async close(): Promise<void> {}

  private path(id: string): string {
    return join(this.folder, `${id}.json`);
  }

  private async names(): Promise<string[]> {
    try {
      return (await readdir(this.folder)).filter((name) => /^[\w-]+\.json$/.test(name)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  private async write(entry: OutboxEntry): Promise<void> {
    await writeWhole(this.path(entry.id), (write) => write(JSON.stringify(entry)).then(() => undefined));
  }

  /** An entry; one this server cannot read is moved aside with one line, and skipped. */
  private async read(id: string): Promise<OutboxEntry | undefined> {
    let text: string;
    try {
      text = await readFile(this.path(id), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const entry = JSON.parse(text) as OutboxEntry;
      if (entry.id === id && Array.isArray(entry.pending) && Number.isFinite(entry.nextAt)) return entry;
    } catch {}
    const line = { label: '[handoff] the outbox file', why: 'it is not a message this server wrote', next: 'skipped' };
    await moveAside(this.path(id), line, this.log).catch(() => {});
    return undefined;
  }
}
