// The sync lock as a lease, in both homes: a lock left by a server that cannot release it (killed with its host, or
// restarted as pid 1 in a new container) is taken over with a log line; a live holder's renewals keep it.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledProcess } from '../../../testing/knowledge-command.ts';
import { type PostgresServer, startPostgresServer } from '../../../testing/postgres-server.ts';
import { storeHomes } from '../../../testing/store-homes.ts';
import { type KnowledgeStore, openKnowledgeStore, type StoreSettings } from './knowledge-store.ts';

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgresServer();
}, 60_000);
afterAll(() => postgres?.remove());

const opened: KnowledgeStore[] = [];
const holders: ChildProcess[] = [];
afterEach(async () => {
  for (const holder of holders.splice(0)) {
    if (holder.exitCode !== null || holder.signalCode !== null) continue;
    const exited = once(holder, 'exit');
    holder.kill('SIGKILL');
    await exited;
  }
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** A store on `settings` with a lease of 600 ms, and its log. */
function open(settings: StoreSettings) {
  const lines: string[] = [];
  const store = openKnowledgeStore({ ...settings, syncLeaseMs: 600 }, (line) => lines.push(line));
  opened.push(store);
  return { store, lines };
}

/** Plants the lock a server on `host` with `pid` took before it was killed, its lease ending at `expiresAt`. */
async function plantLock(settings: StoreSettings, host: string, pid: number, expiresAt: number) {
  if (!settings.databaseUrl) {
    await mkdir(join(settings.dataDir, 'knowledge'), { recursive: true });
    await writeFile(
      join(settings.dataDir, 'knowledge', 'sync.lock'),
      JSON.stringify({ owner: 'old', host, pid, expiresAt }),
    );
    return;
  }
  // The tables exist once the store was first used; no session has this backend pid while the lease lasts.
  await open(settings).store.generation();
  const client = new pg.Client({ connectionString: settings.databaseUrl });
  await client.connect();
  await client.query(
    `INSERT INTO knowledge_sync_lock VALUES (true, 'old', $1, pg_backend_pid(), to_timestamp($2 / 1000.0))`,
    [`pid ${pid} on ${host}`, expiresAt],
  );
  // Kept open while the lease has not run out: the session that holds the lock is alive.
  if (expiresAt > Date.now()) opened.push({ close: () => client.end() } as KnowledgeStore);
  else await client.end();
}

const homes = storeHomes(() => postgres);

describe.each(homes)('the sync lock in %s', (home, makeSettings) => {
  it('is taken over, with a log line, when its holder was killed on a host that is gone', async () => {
    const settings = await makeSettings();
    await plantLock(settings, 'container-3f2a9c', 1, Date.now() - 1_000);
    const { store, lines } = open(settings);
    expect(await store.withSyncLock(async () => 'synced')).toEqual({ ran: true, result: 'synced' });
    expect(lines).toEqual([expect.stringMatching(/^\[knowledge\] the sync lock .* taken over: its lease ran out/)]);
    expect(lines[0]).toContain('container-3f2a9c');
    // Released: the next sync takes it at once, with nothing to say.
    expect(await store.withSyncLock(async () => 'again')).toEqual({ ran: true, result: 'again' });
    expect(lines).toHaveLength(1);
  });

  it('is not taken while its lease lasts on another host', async () => {
    const settings = await makeSettings();
    await plantLock(settings, 'another-replica', 4242, Date.now() + 60_000);
    const { store, lines } = open(settings);
    expect(await store.withSyncLock(async () => 'synced')).toEqual({ ran: false });
    expect(lines).toEqual([]);
  });

  it('is kept by a live holder that renews it, past many leases', async () => {
    const settings = { ...(await makeSettings()), syncLeaseMs: 600 };
    const [node, script] = bundledProcess('hold-sync-lock');
    const holder = spawn(node, [script, JSON.stringify(settings)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    holders.push(holder);
    const [line] = (await once(holder.stdout, 'data')) as [Buffer];
    expect(line.toString()).toBe('held\n');
    const lockFile = join(settings.dataDir, 'knowledge', 'sync.lock');
    const expiry = async () =>
      home === 'PostgreSQL' ? 0 : (JSON.parse(await readFile(lockFile, 'utf8')) as { expiresAt: number }).expiresAt;
    const before = await expiry();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const { store } = open(settings);
    expect(await store.withSyncLock(async () => 'stolen')).toEqual({ ran: false });
    if (home !== 'PostgreSQL') expect(await expiry()).toBeGreaterThan(before + 1_000);
  }, 30_000);
});

describe('the sync lock in files under DATA_DIR', () => {
  const dataDir = async () => (await homes[0][1]()).dataDir;

  it("is taken over when it names this process's own pid (pid 1 again in a new container) but not its lock", async () => {
    const settings = { dataDir: await dataDir() };
    await plantLock(settings, hostname(), process.pid, Date.now() + 60_000);
    const { store, lines } = open(settings);
    expect(await store.withSyncLock(async () => 'synced')).toEqual({ ran: true, result: 'synced' });
    expect(lines).toEqual([expect.stringMatching(/taken over: an earlier process with the same pid left it$/)]);
    // Its own lock, held by another store of this process, is not.
    const inside = await store.withSyncLock(async () => (await open(settings).store.withSyncLock(async () => 1)).ran);
    expect(inside).toEqual({ ran: true, result: false });
  });

  it('takes over the lock of an older version (`pid host`) once a lease has passed since it was written', async () => {
    const settings = { dataDir: await dataDir() };
    const lockFile = join(settings.dataDir, 'knowledge', 'sync.lock');
    await mkdir(join(settings.dataDir, 'knowledge'));
    await writeFile(lockFile, '1 old-container');
    const { store } = open(settings);
    expect(await store.withSyncLock(async () => 'synced')).toEqual({ ran: false });
    const past = new Date(Date.now() - 5_000);
    await writeFile(lockFile, '1 old-container');
    await utimes(lockFile, past, past);
    expect(await store.withSyncLock(async () => 'synced')).toEqual({ ran: true, result: 'synced' });
  });
});

describe('the sync lock in PostgreSQL', () => {
  it('is taken over at once when the session that held it is gone (a killed server)', async () => {
    const settings = { dataDir: '/nonexistent', databaseUrl: await postgres.createDatabase('lock_session') };
    const { store: first } = open(settings);
    await first.generation();
    const client = new pg.Client({ connectionString: settings.databaseUrl });
    await client.connect();
    await client.query(
      `INSERT INTO knowledge_sync_lock VALUES (true, 'old', 'pid 1 on container-77', pg_backend_pid(), now() + interval '1 hour')`,
    );
    await client.end();
    const { store, lines } = open(settings);
    let outcome = await store.withSyncLock(async () => 'synced');
    // The server notices the closed session at once; give it a moment on a busy machine.
    for (let tries = 0; !outcome.ran && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      outcome = await store.withSyncLock(async () => 'synced');
    }
    expect(outcome).toEqual({ ran: true, result: 'synced' });
    expect(lines).toEqual([
      expect.stringMatching(/held by pid 1 on container-77 was taken over: its session is gone$/),
    ]);
  });
});
