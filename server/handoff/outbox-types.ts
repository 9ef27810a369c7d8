import { fileURLToPath } from 'node:url';
import type { HandoffMessage } from './handoff-request.ts';

/** Where a message goes: the site's `handoff.email` by SMTP, its `handoff.webhook` by POST. */
export type Channel = 'email' | 'webhook';

/** A message waiting to be delivered: kept only until every channel has it, then deleted. */
export interface OutboxEntry {
  id: string;
  /** When the visitor sent it (ms since the epoch): after `giveUpMs` from here it is set aside. */
  createdAt: number;
  /** Failed attempts so far: the next waits longer. */
  attempts: number;
  /** When the next attempt is due. */
  nextAt: number;
  /** The channels that do not have it yet. */
  pending: Channel[];
  message: HandoffMessage;
}

/**
 * The outbox, in the configured store: files under `DATA_DIR`, or PostgreSQL shared by replicas. An entry is written
 * before the visitor hears "Sent", so that a crash or a restart loses nothing; it is claimed by one deliverer at a time.
 */
export interface Outbox {
  /** Where it lives, for the start-up line (never a password). */
  readonly home: string;
  put(entry: OutboxEntry): Promise<void>;
  /** Up to `limit` entries due at `now`, each claimed for `leaseMs`: no other deliverer takes them meanwhile. */
  claimDue(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  /** After an attempt that left channels to do: the entry as it now is, its claim released. */
  update(entry: OutboxEntry): Promise<void>;
  /** Delivered everywhere: gone. */
  remove(id: string): Promise<void>;
  /** Undeliverable: moved out of the outbox, for the owner to look at; answers where to. */
  setAside(entry: OutboxEntry): Promise<string>;
  /** How many wait (tests, and the owner's checks). */
  size(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The PostgreSQL outbox's migrations, numbered plain SQL files like the knowledge store's, with a version of their own
 * (`handoff_schema`). The build copies them beside its server bundle (build/sql-migrations.ts).
 */
export const HANDOFF_MIGRATIONS_DIR = fileURLToPath(new URL('./handoff-migrations/', import.meta.url));
