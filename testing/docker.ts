import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Debian's Docker client (20.10, with BuildKit built in). Not whatever `docker` the PATH finds first: a newer client
 * without buildx cannot build with DOCKER_BUILDKIT=1. `DOCKER_PATH` points elsewhere if needed.
 */
export const DOCKER = process.env.DOCKER_PATH ?? '/usr/bin/docker';
const DOCKERD = process.env.DOCKERD_PATH ?? '/usr/sbin/dockerd';
const DEBOOTSTRAP = '/usr/sbin/debootstrap';

/** The `node` image the Dockerfile names by default, built here when missing (no registry can be reached). */
export const NODE_IMAGE = 'node:20-bookworm-slim';

/** Debian's docker-compose (1.29, v1), or the `docker compose` plugin where a newer Docker has it. */
const COMPOSE_V1 = process.env.DOCKER_COMPOSE_PATH ?? '/usr/bin/docker-compose';
const COMPOSE_PLUGIN = '/usr/libexec/docker/cli-plugins/docker-compose';

/**
 * Why the container tests cannot run here, or undefined when they can. `.ci/run` installs all of it, and sets
 * REQUIRE_DOCKER so that CI fails rather than skips.
 */
export function dockerMissing(): string | undefined {
  for (const [paths, install] of [
    [[DOCKER], 'docker.io'],
    [[DOCKERD], 'docker.io'],
    [[DEBOOTSTRAP], 'debootstrap'],
    [[COMPOSE_V1, COMPOSE_PLUGIN], 'docker-compose'],
  ] as const) {
    if (!paths.some((path) => existsSync(path))) {
      const why = `${paths[0]} is missing (Debian's ${install}; .ci/run installs it)`;
      if (process.env.REQUIRE_DOCKER) throw new Error(`REQUIRE_DOCKER is set, but ${why}`);
      return why;
    }
  }
  return undefined;
}

/**
 * Runs a compose command on the project in `dir` (its compose.yaml and .env) under its own project name, with
 * `variables` for compose.yaml from the shell's environment (they go before .env's, and not to the server).
 */
export function compose(dir: string, project: string, args: string[], variables: Record<string, string> = {}) {
  const options = { cwd: dir, timeoutMs: 600_000, env: { ...process.env, ...variables } };
  return existsSync(COMPOSE_V1)
    ? run(COMPOSE_V1, ['--project-name', project, ...args], options)
    : docker(['compose', '--project-name', project, ...args], options);
}

/**
 * The address of Docker's default bridge on this machine (172.17.0.1 as a rule): a container on any network, the
 * compose project's own included, reaches the machine's servers listening there, which 127.0.0.1 would not allow.
 * Docker 20.10 names no gateway for the bridge when it made `docker0` itself (a fresh machine's first start): the
 * bridge then has the subnet's first address, as Docker gives it.
 */
export async function bridgeGateway(): Promise<string> {
  const { stdout } = await docker(['network', 'inspect', 'bridge', '--format', '{{json (index .IPAM.Config 0)}}']);
  return gatewayOf(JSON.parse(stdout) as { Subnet?: string; Gateway?: string });
}

/** The bridge's gateway, or else the first address of its IPv4 subnet. */
export function gatewayOf({ Subnet, Gateway }: { Subnet?: string; Gateway?: string }): string {
  if (Gateway) return Gateway;
  const network = Subnet?.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)\/\d+$/);
  if (!network) throw new Error(`Docker's bridge names no gateway and no IPv4 subnet (${Subnet})`);
  const [a, b, c, d] = network.slice(1).map(Number);
  const first = (((a << 24) | (b << 16) | (c << 8) | d) + 1) >>> 0;
  return [first >>> 24, (first >>> 16) & 255, (first >>> 8) & 255, first & 255].join('.');
}

export interface Run {
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a failure's error carries its output. Builds can be long: `timeoutMs` bounds them. */
export async function run(
  file: string,
  args: string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Run> {
  const { timeoutMs = 600_000, env, cwd } = options;
  try {
    return await promisify(execFile)(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env, cwd });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as Partial<Run>;
    throw new Error(`${file} ${args.join(' ')} failed: ${(error as Error).message}\n${stdout}\n${stderr}`.slice(-8000));
  }
}

export const docker = (args: string[], options?: Parameters<typeof run>[2]) => run(DOCKER, args, options);

async function answers(): Promise<boolean> {
  return docker(['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 10_000 }).then(
    () => true,
    () => false,
  );
}

/** Waits for `check` to hold, asking every `everyMs`, for at most `deadlineMs` (a readiness wait, not a sleep). */
export async function waitFor(what: string, check: () => Promise<boolean>, deadlineMs: number, everyMs = 250) {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * A Docker daemon to talk to: the machine's own when one answers, otherwise `dockerd` started here (there is no
 * systemd to start it) with its images under `DOCKER_DATA_ROOT` (default /var/tmp/assistant-docker), kept between
 * runs so that the base image and the build cache are made once. `stop()` stops only a daemon started here.
 */
export async function startDocker(): Promise<{ stop(): Promise<void> }> {
  if (await answers()) return { stop: async () => {} };
  const dataRoot = process.env.DOCKER_DATA_ROOT ?? '/var/tmp/assistant-docker';
  await mkdir(dataRoot, { recursive: true });
  const daemon: ChildProcess = spawn(DOCKERD, ['--data-root', dataRoot], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  daemon.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = once(daemon, 'exit');
  try {
    await waitFor(
      'dockerd answering',
      async () => {
        if (daemon.exitCode !== null) throw new Error(`dockerd exited ${daemon.exitCode}:\n${log}`);
        return answers();
      },
      60_000,
    );
  } catch (error) {
    daemon.kill('SIGTERM');
    throw error;
  }
  return {
    stop: async () => {
      daemon.kill('SIGTERM');
      await exited;
    },
  };
}

export async function imageExists(tag: string): Promise<boolean> {
  return docker(['image', 'inspect', tag], { timeoutMs: 30_000 }).then(
    () => true,
    () => false,
  );
}

/**
 * The `node:20-bookworm-slim` the Dockerfile names, made here as no registry can be reached: Debian bookworm's minimal
 * root file system (debootstrap, about 90 s) with this machine's own Node 20 and npm, and the `node` user (uid 1000)
 * of the official image. Made once: an image already tagged so is used as it is.
 */
export async function ensureNodeImage(): Promise<{ built: boolean; ms: number }> {
  const started = Date.now();
  if (await imageExists(NODE_IMAGE)) return { built: false, ms: Date.now() - started };
  const dir = await mkdtemp(join(process.env.DOCKER_BASE_TMP ?? '/var/tmp', 'node-image-'));
  const root = join(dir, 'rootfs');
  try {
    await run(DEBOOTSTRAP, ['--variant=minbase', 'bookworm', root, 'http://deb.debian.org/debian'], {
      timeoutMs: 900_000,
    });
    // What an image does not need: the downloaded packages, the package lists, documentation and translations.
    for (const leftover of [
      'var/cache/apt/archives',
      'var/lib/apt/lists',
      'usr/share/doc',
      'usr/share/man',
      'usr/share/locale',
    ]) {
      await rm(join(root, leftover), { recursive: true, force: true });
      await mkdir(join(root, leftover), { recursive: true });
    }
    await cp(process.execPath, join(root, 'usr/local/bin/node'));
    await mkdir(join(root, 'usr/local/lib/node_modules'), { recursive: true });
    await cp('/usr/lib/node_modules/npm', join(root, 'usr/local/lib/node_modules/npm'), { recursive: true });
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
    await run('/usr/sbin/chroot', [
      root,
      'sh',
      '-c',
      'groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/bash node',
    ]);
    const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const imported = spawn(DOCKER, ['import', '--change', 'CMD ["node"]', '-', NODE_IMAGE], {
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    tar.stdout.pipe(imported.stdin);
    const [[code]] = await Promise.all([once(imported, 'exit'), once(tar, 'exit')]);
    if (code !== 0) throw new Error(`docker import exited ${code}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { built: true, ms: Date.now() - started };
}

/** The image's size in bytes, as `docker images` reports it. */
export async function imageSize(tag: string): Promise<number> {
  return Number((await docker(['image', 'inspect', '--format', '{{.Size}}', tag])).stdout.trim());
}

const STAND_INS = fileURLToPath(new URL('./stand-in-images/', import.meta.url));

/**
 * The `redis:7` and `postgres:16` that compose.yaml names, made here from the same base as no registry can be reached
 * (testing/stand-in-images: Debian's redis-server and PostgreSQL 15). Made once: a tag already present is used as it is.
 */
export async function ensureStandInImages(): Promise<{ built: string[]; ms: number }> {
  const started = Date.now();
  // The two at once: each is mostly Debian's packages being fetched and unpacked.
  const built = await Promise.all(
    [
      ['redis:7', 'redis.Dockerfile'],
      ['postgres:16', 'postgres.Dockerfile'],
    ].map(async ([tag, file]) => {
      if (await imageExists(tag)) return [];
      const args = ['build', '--quiet', '--build-arg', `BASE=${NODE_IMAGE}`, '-f', join(STAND_INS, file), '-t', tag];
      await docker([...args, STAND_INS], { timeoutMs: 900_000 });
      return [tag];
    }),
  );
  return { built: built.flat(), ms: Date.now() - started };
}

export const tempDir = (prefix: string) => mkdtemp(join(tmpdir(), prefix));
