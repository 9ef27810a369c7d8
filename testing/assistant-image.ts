import { existsSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { docker, ensureNodeImage, run, tempDir } from './docker.ts';
import { ROOT_DIR } from './production-app.ts';

/**
 * A token planted in the build context's `.env`, as an owner's machine has one: a VITE_ variable is compiled into the
 * page, so an image whose build saw the file would carry it (and be a direct-mode build). `.dockerignore` keeps it out.
 */
export const PLANTED_TOKEN = 'planted-dotenv-token-must-not-ship-0000';

export interface BuiltImage {
  tag: string;
  /** How long the build took, for the test's figures. */
  buildMs: number;
}

/**
 * The project's image built as a fresh clone builds it: the context is what git has (committed or not, nothing it
 * ignores), plus an owner's `.env`, `data/` and `node_modules/` that `.dockerignore` must keep out. The npm CA of this
 * machine's network (`NODE_EXTRA_CA_CERTS`), when there is one, goes in as the `npm_ca` build secret. Docker's build
 * cache makes a second build of the same sources take seconds.
 */
export async function buildAssistantImage(tag: string): Promise<BuiltImage> {
  await ensureNodeImage();
  const context = await tempDir('assistant-context-');
  try {
    const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT_DIR,
    });
    for (const file of new Set(stdout.split('\0').filter(Boolean))) {
      const from = join(ROOT_DIR, file);
      if (!existsSync(from)) continue; // deleted but not yet committed
      await mkdir(dirname(join(context, file)), { recursive: true });
      await cp(from, join(context, file));
    }
    await writeFile(join(context, '.env'), `VITE_LLM_API_KEY=${PLANTED_TOKEN}\nLLM_API_KEY=${PLANTED_TOKEN}\n`);
    await mkdir(join(context, 'data/knowledge'), { recursive: true });
    await writeFile(join(context, 'data/knowledge/store.json'), `${PLANTED_TOKEN}\n`);
    await mkdir(join(context, 'node_modules/planted'), { recursive: true });
    await writeFile(join(context, 'node_modules/planted/index.js'), `export default '${PLANTED_TOKEN}';\n`);
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const secret = ca && existsSync(ca) ? ['--secret', `id=npm_ca,src=${ca}`] : [];
    const started = Date.now();
    await docker(['build', '--progress=plain', ...secret, '-t', tag, context], {
      env: { ...process.env, DOCKER_BUILDKIT: '1' },
      timeoutMs: 1_200_000,
    });
    return { tag, buildMs: Date.now() - started };
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
