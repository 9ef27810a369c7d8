import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.ts';

/** A mail as the SMTP server received it: its envelope, and the message's text (headers, then body). */
export interface ReceivedMail {
  from: string;
  to: string[];
  text: string;
}

export interface SmtpServer {
  /** `smtp://USER:PASSWORD@127.0.0.1:PORT`: the server takes exactly this user and password (AUTH PLAIN or LOGIN). */
  url: string;
  port: number;
  /** The password, to check that no log line holds it. */
  password: string;
  /** Every mail received so far, oldest first. */
  mails(): Promise<ReceivedMail[]>;
  /** Starts it (on its port, which is reserved when the helper is made: a test may start it late). */
  start(): Promise<void>;
  /** Stops it at once (SIGKILL), keeping the mails received. */
  stop(): Promise<void>;
  /** Stops it and deletes the mails. */
  remove(): Promise<void>;
}

// aiosmtpd's SMTP with a handler that writes each mail to a file of its own (written, then renamed: a reader sees it
// whole), and an authenticator that takes the one user. AUTH without TLS: on loopback, for tests only.
const SERVER = `
import asyncio, json, os, sys, time
from aiosmtpd.smtp import SMTP, AuthResult
port, folder, user, password = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode(), sys.argv[4].encode()
class Handler:
    async def handle_DATA(self, server, session, envelope):
        name = os.path.join(folder, '%d.json' % time.time_ns())
        with open(name + '.tmp', 'w') as f:
            json.dump({'from': envelope.mail_from, 'to': envelope.rcpt_tos,
                       'text': envelope.original_content.decode('utf8', 'replace')}, f)
        os.rename(name + '.tmp', name)
        return '250 Message accepted'
def authenticate(server, session, envelope, mechanism, data):
    return AuthResult(success=data.login == user and data.password == password)
async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(Handler(), authenticator=authenticate, auth_require_tls=False), '127.0.0.1', port)
    print('ready', flush=True)
    await server.serve_forever()
asyncio.run(main())
`;

/**
 * A real SMTP server for tests: Debian's `python3-aiosmtpd` run by Debian's own Python (`/usr/bin/python3`: another
 * `python3` earlier on the PATH may not see Debian's packages; `SMTP_PYTHON` points elsewhere), on a loopback port.
 * Made stopped with `{ started: false }`, as a mail server that is down when the product first tries it.
 */
export async function smtpServer({ started = true } = {}): Promise<SmtpServer> {
  const port = await freePort();
  const folder = await mkdtemp(join(tmpdir(), 'smtp-mails-'));
  const user = 'assistant@shop.example';
  // Obviously fake, and distinctive enough to search every log line for.
  const password = 'fake-smtp-password-7c1e';
  let child: ChildProcess | undefined;

  const start = async () => {
    const python = process.env.SMTP_PYTHON ?? '/usr/bin/python3';
    const started = spawn(python, ['-c', SERVER, String(port), folder, user, password], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      started.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString('utf8').includes('ready')) resolve();
      });
      started.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      started.once('error', (error) => reject(new Error(`aiosmtpd could not start (${error.message})`)));
      started.once('exit', (code) => reject(new Error(`aiosmtpd exited (code ${code}):\n${output}`)));
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  if (started) await start();
  return {
    url: `smtp://${encodeURIComponent(user)}:${password}@127.0.0.1:${port}`,
    port,
    password,
    async mails() {
      const names = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort();
      return Promise.all(names.map(async (name) => JSON.parse(await readFile(join(folder, name), 'utf8'))));
    },
    start,
    stop,
    async remove() {
      await stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
