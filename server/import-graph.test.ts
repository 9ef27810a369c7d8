import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVER_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(SERVER_DIR, '..');

/** The relative imports and re-exports of a file (type-only ones too: a cycle of types is still a tangle). */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gms)].map((m) => m[1]);
  return specifiers.map((specifier) => withExtension(resolve(dirname(file), specifier)));
}

/** The file an import names: the page's code leaves out `.ts` and `.tsx`, as its bundler allows. */
function withExtension(path: string): string {
  return (
    [path, `${path}.ts`, `${path}.tsx`].find((candidate) => /\.tsx?$/.test(candidate) && existsSync(candidate)) ?? path
  );
}

/** One import cycle reachable from `files`, as the files around it, or `undefined` when there is none. */
function findCycle(files: string[]): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'visiting') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'visiting');
    path.push(file);
    for (const next of relativeImports(file)) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of files) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

const codeFiles = (folder: string) =>
  (readdirSync(join(ROOT, folder), { recursive: true }) as string[])
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => join(ROOT, folder, name));
const serverFiles = codeFiles('server');
const projectFiles = ['server', 'src', 'machines', 'contract', 'embed', 'locales'].flatMap(codeFiles);

describe("the server's imports", () => {
  it('run downhill: no file reaches itself again', () => {
    const cycle = findCycle(serverFiles);
    expect(cycle?.map((file) => relative(ROOT, file)).join(' → ')).toBeUndefined();
  });

  it("run downhill in the page's code, the machines and the contract too, type imports included", () => {
    const cycle = findCycle(projectFiles);
    expect(cycle?.map((file) => relative(ROOT, file)).join(' → ')).toBeUndefined();
  });

  it('are read by this check (it finds a cycle when there is one)', () => {
    expect(relativeImports(join(ROOT, 'src', 'llm', 'llm-config.ts'))).toContain(
      join(ROOT, 'src', 'llm', 'reply-timers.ts'),
    );
    expect(serverFiles).toContain(join(SERVER_DIR, 'chat', 'sse-relay.ts'));
    expect(relativeImports(join(SERVER_DIR, 'app.ts'))).toContain(join(SERVER_DIR, 'chat', 'chat-route.ts'));
    expect(relativeImports(join(SERVER_DIR, 'listen.ts'))).toContain(join(SERVER_DIR, 'hono-env.ts'));
  });
});
