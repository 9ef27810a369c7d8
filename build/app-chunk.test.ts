import { describe, expect, it } from 'vitest';
import { APP_STAGE_NAME, appChunkGroup, staticGraph } from './app-chunk';

/** A module graph as the bundler shows it to a group: static imports only; a lazy chunk is no static import. */
const graph: Record<string, string[]> = {
  // The page's entry: its stages are dynamic imports, but the helper that wraps them is a static one.
  '/src/start.ts': ['\0vite/preload-helper.js'],
  '/src/main.tsx': ['/src/app.tsx', '/machines/chat-machine.ts', '\0vite/preload-helper.js'],
  '/src/app.tsx': ['/machines/chat-machine.ts', '/node_modules/react/index.js'],
  '/machines/chat-machine.ts': ['/node_modules/xstate/dist/xstate.esm.js'],
  '/node_modules/xstate/dist/xstate.esm.js': [],
  '/node_modules/react/index.js': [],
  '\0vite/preload-helper.js': [],
  // Imported dynamically by the app: its own chunk, which imports the machine from the app's.
  '/src/llm/request-reply.ts': ['/machines/chat-machine.ts', '/node_modules/openai/index.mjs'],
  '/node_modules/openai/index.mjs': [],
};

/** The bundler's chunking context over `graph`: one info object per module for the whole pass, as the bundler does. */
function chunkingContext(modules: Record<string, string[]>) {
  const infos = new Map(Object.entries(modules).map(([id, importedIds]) => [id, { importedIds }]));
  return { getModuleInfo: (id: string) => infos.get(id) ?? null } as never;
}

describe('staticGraph', () => {
  it('holds the entry and everything it imports statically, through cycles, and nothing else', () => {
    const cyclic: Record<string, string[]> = {
      ...graph,
      '/node_modules/xstate/dist/xstate.esm.js': ['/machines/chat-machine.ts'],
    };
    expect(staticGraph('/src/main.tsx', (id) => cyclic[id] ?? [])).toEqual(
      new Set([
        '/machines/chat-machine.ts',
        '/node_modules/react/index.js',
        '/node_modules/xstate/dist/xstate.esm.js',
        '/src/app.tsx',
        '/src/main.tsx',
        '\0vite/preload-helper.js',
      ]),
    );
  });
});

describe('appChunkGroup', () => {
  const group = appChunkGroup({ entry: '/src/start.ts', stage: '/src/main.tsx' });
  const name = group.name as (id: string, ctx: never) => string | null;

  it("puts the app stage's static imports in its chunk, shared with a lazy chunk or not", () => {
    const ctx = chunkingContext(graph);
    for (const id of ['/src/main.tsx', '/src/app.tsx', '/machines/chat-machine.ts', '/node_modules/react/index.js']) {
      expect(name(id, ctx), id).toBe(APP_STAGE_NAME);
    }
    // React here is taken by the react-dom group first, which comes before this one.
    expect(group.includeDependenciesRecursively).toBe(false);
  });

  it("leaves a lazy chunk's own modules, and what the page's entry imports statically, to the bundler", () => {
    const ctx = chunkingContext(graph);
    for (const id of ['/src/llm/request-reply.ts', '/node_modules/openai/index.mjs', '\0vite/preload-helper.js']) {
      expect(name(id, ctx), id).toBeNull();
    }
  });

  it('follows each pass of the bundler, and takes nothing from a build without the app stage (the server build)', () => {
    expect(name('/src/app.tsx', chunkingContext(graph))).toBe(APP_STAGE_NAME);
    const { '/src/app.tsx': _, ...withoutApp } = graph;
    expect(name('/src/app.tsx', chunkingContext({ ...withoutApp, '/src/main.tsx': [] }))).toBeNull();
    const server = { '/server/main.ts': ['/machines/chat-machine.ts'], '/machines/chat-machine.ts': [] };
    expect(name('/machines/chat-machine.ts', chunkingContext(server))).toBeNull();
  });
});
