import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ARCHITECTURE_FILE,
  codeFiles,
  importMap,
  importProblems,
  mapBlock,
  mapIn,
  ROOT_DIR,
  relativeImports,
  serverImports,
} from '../build/import-map.ts';

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

const SERVER_DIR = join(ROOT_DIR, 'server');
const serverFiles = codeFiles('server');
const projectFiles = ['server', 'src', 'machines', 'contract', 'embed', 'locales'].flatMap(codeFiles);

describe("the server's imports", () => {
  it('run downhill: no file reaches itself again', () => {
    const cycle = findCycle(serverFiles);
    expect(cycle?.map((file) => relative(ROOT_DIR, file)).join(' → ')).toBeUndefined();
  });

  it("run downhill in the page's code, the machines and the contract too, type imports included", () => {
    const cycle = findCycle(projectFiles);
    expect(cycle?.map((file) => relative(ROOT_DIR, file)).join(' → ')).toBeUndefined();
  });

  it('run downhill between rooms: no two rooms import each other, each is entered by its entry, shared files import none', () => {
    expect(importProblems(serverImports())).toEqual([]);
  });

  it('are drawn in docs/architecture.md as they are today (run `npm run diagram` after moving an import)', () => {
    const doc = readFileSync(ARCHITECTURE_FILE, 'utf8');
    expect(mapIn(doc).map).toBe(importMap());
    expect(mapIn(doc).withMap(mapBlock(mapIn(doc).map))).toBe(doc);
  });

  it('are read by this check (it finds a cycle, a pair, a way in by the back and a shared file that looks up)', () => {
    expect(relativeImports(join(ROOT_DIR, 'src', 'llm', 'llm-config.ts'))).toContain(
      join(ROOT_DIR, 'src', 'llm', 'reply-timers.ts'),
    );
    expect(serverFiles).toContain(join(SERVER_DIR, 'chat', 'sse-relay.ts'));
    expect(serverImports()).toContainEqual({ from: 'app.ts', to: 'chat/chat.ts' });
    expect(serverImports()).toContainEqual({ from: 'listen.ts', to: 'hono-env.ts' });
    expect(
      importProblems([
        { from: 'limits/spend-cap.ts', to: 'chat/chat.ts' },
        { from: 'chat/chat-route.ts', to: 'limits/limits.ts' },
        { from: 'pages/page-html.ts', to: 'settings/accent.ts' },
        { from: 'settings/env.ts', to: 'knowledge/knowledge.ts' },
        { from: 'knowledge/knowledge.ts', to: 'pages/pages.ts' },
        { from: 'hono-env.ts', to: 'feedback/owner-loop.ts' },
        { from: 'limits/rate-limit.ts', to: 'listen.ts' },
      ]),
    ).toEqual([
      'pages/page-html.ts enters settings by settings/accent.ts, not by its entry (settings.ts)',
      'hono-env.ts is shared by every room, so it imports none: feedback/owner-loop.ts',
      "limits/rate-limit.ts imports the top's listen.ts",
      'chat and limits import each other',
      'the rooms run in a circle: limits → chat → limits',
    ]);
  });
});
