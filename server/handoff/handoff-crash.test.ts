import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HANDOFF_PATH } from '../../contract/handoff.ts';
import { bundledProcess } from '../../testing/knowledge-command.ts';
import { type PostgresServer, startPostgresServer } from '../../testing/postgres-server.ts';
import { until } from '../../testing/production-harness.ts';
import { type SmtpServer, smtpServer } from '../../testing/smtp-server.ts';
import { type HandoffSettings, openOutbox } from './handoff.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let postgres: PostgresServer;
const children: ChildProcess[] = [];
let smtp: SmtpServer | undefined;
beforeAll(async () => {
  postgres = await startPostgresServer();
}, 60_000);
afterAll(() => postgres?.remove());
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await smtp?.remove();
});

/** The handoff server as a process of its own, and what it printed. */
async function startProcess(store: HandoffSettings['store'], smtpUrl: string) {
  const [node, script] = bundledProcess('handoff-process');
  const child = spawn(node, [script, JSON.stringify({ store, smtpUrl })], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        output.push(line);
        const listening = /^listening (\S+)/.exec(line);
        if (listening) resolve(listening[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`the handoff process exited (${code}):\n${output.join('\n')}`)));
  });
  return { child, url, output };
}

const homes: [string, () => Promise<HandoffSettings['store']>][] = [
  ['files under DATA_DIR', async () => ({ dataDir: await mkdtemp(join(tmpdir(), 'handoff-crash-')) })],
  [
    'PostgreSQL',
    async () => ({ dataDir: '/nonexistent', databaseUrl: await postgres.createDatabase('handoff_crash') }),
  ],
];

describe.each(homes)('a server killed between the 202 and the delivery (outbox in %s)', (_home, makeStore) => {
  it('leaves the message to the next one, which mails it once', async () => {
    const store = await makeStore();
    smtp = await smtpServer({ started: false });
    const first = await startProcess(store, smtp.url);
    const { token } = (await (await fetch(`${first.url}${HANDOFF_PATH}`)).json()) as { token: string };
    const sent = await fetch(`${first.url}${HANDOFF_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, email: 'visitor@example.org', message: 'Call me back, please', language: 'en' }),
    });
    expect(sent.status).toBe(202);
    const exited = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await exited;

    // The outbox as the next server sees it: the message is there, nothing was mailed.
    const look = openOutbox(store, () => {});
    expect(await look.size()).toBe(1);
    expect(await smtp.mails()).toHaveLength(0);

    await smtp.start();
    await startProcess(store, smtp.url);
    const mails = await until(
      () => smtp?.mails() ?? Promise.resolve([]),
      (found) => found.length === 1,
      'the mail',
    );
    expect(mails[0].text).toContain('Call me back, please');
    expect(mails[0].text).toMatch(/^Reply-To: visitor@example\.org\r?$/m);
    await until(
      () => look.size(),
      (size) => size === 0,
      'an empty outbox',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await smtp.mails()).toHaveLength(1);
    await look.close();
  }, 60_000);
});
