// `npm run diagram` (with the machine's): draws the server's rooms from their imports as a Mermaid flowchart, into
// docs/architecture.md between the markers below. server/import-graph.test.ts fails when the picture and the imports
// differ, and when an import runs back up, joins two rooms both ways or enters a room other than by its entry.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ARCHITECTURE_FILE = join(ROOT_DIR, 'docs', 'architecture.md');
const BEGIN = '<!-- import-map:begin (npm run diagram writes this; do not edit by hand) -->';
const END = '<!-- import-map:end -->';

/**
 * Each room's door: the file that other rooms and the top may import. Everything else under `server/` is the top (the
 * entry points: app.ts, main.ts, the Vite plugin, the composition root, the knowledge commands in cli/) or shared.
 */
export const ENTRIES: Record<string, string[]> = {
  chat: ['chat.ts'],
  feedback: ['owner-loop.ts'],
  handoff: ['handoff.ts'],
  limits: ['limits.ts'],
  pages: ['pages.ts'],
  settings: ['settings.ts'],
  knowledge: ['knowledge.ts'],
  traces: ['traces.ts'],
  actions: ['actions.ts'],
};

/** The files under every room: the types and helpers they all share. They import no room and nothing above. */
export const SHARED = [
  'hono-env.ts',
  'api-error.ts',
  'once-per-window.ts',
  'data-files.ts',
  'metrics.ts',
  'sql-migrations.ts',
];

/** One import of a product file of the server's: both sides relative to `server/`. */
export interface ServerImport {
  from: string;
  to: string;
}

/** The relative imports and re-exports of a file (type-only ones too: a cycle of types is still a tangle). */
export function relativeImports(file: string): string[] {
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

export const codeFiles = (folder: string) =>
  (readdirSync(join(ROOT_DIR, folder), { recursive: true }) as string[])
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => join(ROOT_DIR, folder, name));

/** Every import between the server's product files (tests may reach what they test; declarations import nothing). */
export function serverImports(): ServerImport[] {
  const server = join(ROOT_DIR, 'server');
  return codeFiles('server')
    .filter((file) => !/\.(test|d)\.ts$/.test(file))
    .flatMap((file) =>
      relativeImports(file)
        .filter((target) => target.startsWith(`${server}/`))
        .map((target) => ({ from: relative(server, file), to: relative(server, target) })),
    );
}

/** A file's room (its folder), or the file itself for the top's files and the shared ones beside them. */
export const roomOf = (file: string) => file.split('/')[0];
const isRoom = (room: string) => room in ENTRIES;

/** What is wrong with `imports`, one line each: empty when every import runs downhill through a room's entry. */
export function importProblems(imports: ServerImport[]): string[] {
  const problems: string[] = [];
  const edges = roomEdges(imports);
  for (const { from, to } of imports) {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (a === b) continue;
    if (SHARED.includes(from)) problems.push(`${from} is shared by every room, so it imports none: ${to}`);
    else if (isRoom(a) && !isRoom(b) && !SHARED.includes(to)) problems.push(`${from} imports the top's ${to}`);
    if (isRoom(b) && !ENTRIES[b].some((entry) => to === `${b}/${entry}`)) {
      problems.push(`${from} enters ${b} by ${to}, not by its entry (${ENTRIES[b].join(', ') || 'none'})`);
    }
  }
  for (const [a, targets] of edges) {
    for (const b of targets) if (a < b && edges.get(b)?.has(a)) problems.push(`${a} and ${b} import each other`);
  }
  const cycle = roomCycle(edges);
  if (cycle) problems.push(`the rooms run in a circle: ${cycle.join(' → ')}`);
  return problems;
}

/** Which rooms (and top or shared files) import which. */
export function roomEdges(imports: ServerImport[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)?.add(b);
  }
  return edges;
}

function roomCycle(edges: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (room: string): string[] | undefined => {
    if (state.get(room) === 'done') return undefined;
    if (state.get(room) === 'visiting') return [...path.slice(path.indexOf(room)), room];
    state.set(room, 'visiting');
    path.push(room);
    for (const next of edges.get(room) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(room, 'done');
    return undefined;
  };
  for (const room of edges.keys()) {
    const cycle = visit(room);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * The rooms as a Mermaid flowchart, top down: the top's files as one box, each room, and the shared files as one box
 * at the bottom; an arrow for each room that imports another.
 */
export function importMap(imports: ServerImport[] = serverImports()): string {
  const group = (node: string) => (isRoom(node) ? node : SHARED.includes(node) ? 'shared' : 'top');
  const arrows = new Set<string>();
  for (const [a, targets] of roomEdges(imports)) {
    for (const b of targets) if (group(a) !== group(b)) arrows.add(`  ${id(group(a))} --> ${id(group(b))}`);
  }
  const files = (kind: string) =>
    [...new Set(imports.flatMap(({ from, to }) => [from, to]))].filter((file) => group(roomOf(file)) === kind).sort();
  return [
    'flowchart TD',
    `  top["top: ${files('top').join(', ')}"]`,
    ...Object.keys(ENTRIES).map((room) => `  ${id(room)}["${room}/ (entry ${ENTRIES[room].join(', ') || 'none'})"]`),
    `  shared["shared: ${files('shared').join(', ')}"]`,
    ...[...arrows].sort(),
  ].join('\n');
}

const id = (node: string) => node.replace(/\W/g, '_');

/** The map's block between its markers, as a Mermaid code block. */
export const mapBlock = (map = importMap()) => `${BEGIN}\n\`\`\`mermaid\n${map}\n\`\`\`\n${END}`;

/** The map the document shows now, and the document with `block` in its place; both throw without the markers. */
export function mapIn(doc: string): { map: string; withMap: (block: string) => string } {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} markers`);
  const inner = doc.slice(start + BEGIN.length, end).trim();
  return {
    map: inner.replace(/^```mermaid\n/, '').replace(/\n```$/, ''),
    withMap: (block) => doc.slice(0, start) + block + doc.slice(end + END.length),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const doc = readFileSync(ARCHITECTURE_FILE, 'utf8');
  const updated = mapIn(doc).withMap(mapBlock());
  writeFileSync(ARCHITECTURE_FILE, updated);
  console.log(`docs/architecture.md: the import map ${updated === doc ? 'was up to date' : 'written'}`);
}
