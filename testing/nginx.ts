import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.ts';

/** The example a site owner copies (deploy/nginx.conf): what the nginx tests run, with only its ports changed. */
export const NGINX_EXAMPLE = new URL('../deploy/nginx.conf', import.meta.url);

/** The example's own ports: where nginx listens, the site's own server, and the assistant. */
const EXAMPLE_PORTS = { listen: 8080, site: 8000, assistant: 3000 };

export interface Nginx {
  /** `http://127.0.0.1:PORT`, where nginx listens. */
  origin: string;
  stop(): Promise<void>;
}

/** The example's text with its three ports changed, and nothing else: the test must run what a site owner copies. */
export function withPorts(conf: string, ports: { listen: number; site: number; assistant: number }): string {
  const replaced = conf
    .replace(`listen ${EXAMPLE_PORTS.listen};`, `listen 127.0.0.1:${ports.listen};`)
    .replace(`127.0.0.1:${EXAMPLE_PORTS.site};`, `127.0.0.1:${ports.site};`)
    .replace(`127.0.0.1:${EXAMPLE_PORTS.assistant};`, `127.0.0.1:${ports.assistant};`);
  for (const port of Object.values(ports)) {
    if (!replaced.includes(`:${port};`))
      throw new Error(`deploy/nginx.conf no longer has the port that ${port} replaces`);
  }
  return replaced;
}

/**
 * Debian's nginx (`.ci/run` installs it) running deploy/nginx.conf on a free loopback port, in front of the site's
 * own server (`sitePort`) and the assistant (`assistantPort`). As root, it runs from a temporary folder through a main
 * file of its own (pid, logs, temporary files in that folder; `user root`, as its workers could not read it otherwise).
 */
export async function startNginx({ sitePort, assistantPort }: { sitePort: number; assistantPort: number }) {
  const dir = await mkdtemp(join(tmpdir(), 'nginx-'));
  const listen = await freePort();
  const site = withPorts(await readFile(NGINX_EXAMPLE, 'utf8'), { listen, site: sitePort, assistant: assistantPort });
  await writeFile(join(dir, 'site.conf'), site);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${dir}/${name};`);
  await writeFile(
    join(dir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 64; }
http {
  access_log off;
  ${temp.join('\n  ')}
  include ${dir}/site.conf;
}
`,
  );
  const binary = process.env.NGINX_PATH ?? 'nginx';
  const child = spawn(binary, ['-c', join(dir, 'nginx.conf'), '-p', dir, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = once(child, 'exit');
  const failed = exited.then(async () => {
    const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
    throw new Error(`nginx exited (code ${child.exitCode}):\n${output}${log}`);
  });
  await Promise.race([listening(listen), failed]);
  return {
    origin: `http://127.0.0.1:${listen}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  } satisfies Nginx;
}

/** Resolves once something accepts connections on the port (nginx says nothing when it is ready). */
async function listening(port: number): Promise<void> {
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
