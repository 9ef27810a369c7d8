import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-server.ts';

const run = promisify(execFile);

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication: there is no password to leak). */
  url: string;
  /** A fresh, empty database on this server, so that tests sharing it keep their tables apart. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server at once (`-m immediate`: as a crash or a lost host looks to its clients). */
  stop(): Promise<void>;
  /** Starts it again on the same port, with what it held. */
  start(): Promise<void>;
  /** Stops it and deletes its files. */
  remove(): Promise<void>;
}

/** Where Debian's PostgreSQL 15 keeps its programs; `POSTGRES_BIN` points elsewhere if needed. */
const bin = (program: string) => join(process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin', program);

/**
 * Runs a PostgreSQL program as the `postgres` user when this process is root (as CI is: `initdb` refuses root), and
 * as this user otherwise.
 */
function asPostgres(program: string, args: string[]) {
  const root = process.getuid?.() === 0;
  return root ? run('runuser', ['-u', 'postgres', '--', bin(program), ...args]) : run(bin(program), args);
}

/**
 * A real PostgreSQL (Debian's `postgresql` package, which `.ci/run` installs) for tests: a new cluster in a temporary
 * folder, listening on a loopback port, without fsync (nothing here must survive the machine).
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ai-assistant-pg-'));
  // The postgres user must own its data folder; a mkdtemp folder is root's and closed to others.
  await chmod(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async () => {
    await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  };
  const stop = async () => {
    await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    createDatabase: async (name) => {
      await asPostgres('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    remove: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
