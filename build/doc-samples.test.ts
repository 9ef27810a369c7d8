// The TypeScript in the docs compiles: every fenced `ts` or `tsx` block of README.md and docs/*.md is type-checked
// with the project's own TypeScript, so that an example cannot use a name it never imports or an option that is
// gone. A block whose first line is a comment naming a file (`// server/start.ts`) is checked as that file, so its
// relative imports reach the project's modules; `@ai-assistant/react` is the package's source.
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Under node_modules, so that packages resolve from the samples as from the project's own files.
const DIR = join(ROOT, 'node_modules/.cache/doc-samples');
const FENCE = /^```(ts|tsx|typescript)\n([\s\S]*?)^```$/gm;

interface Sample {
  /** Where it is written: its own file name, or one made from its document and number. */
  file: string;
  /** `docs/react.md:27`, for the message. */
  where: string;
  code: string;
}

async function samples(): Promise<Sample[]> {
  const documents = ['README.md', ...(await readdir(join(ROOT, 'docs'))).map((name) => `docs/${name}`)];
  const found: Sample[] = [];
  for (const document of documents.filter((name) => name.endsWith('.md'))) {
    const text = await readFile(join(ROOT, document), 'utf8');
    for (const match of text.matchAll(FENCE)) {
      const [, language, code] = match;
      const line = text.slice(0, match.index).split('\n').length + 1;
      const named = /^\/\/ ([\w./-]+\.tsx?)\n/.exec(code)?.[1];
      const extension = language === 'tsx' ? 'tsx' : 'ts';
      const file = named ?? `${document.replace(/\W/g, '-')}-${line}.${extension}`;
      found.push({ file, where: `${document}:${line}`, code });
    }
  }
  return found;
}

afterAll(() => rm(DIR, { recursive: true, force: true }));

it('type-checks every TypeScript sample of the docs', async () => {
  const found = await samples();
  expect(found.map(({ where }) => where)).toEqual(expect.arrayContaining([expect.stringMatching(/^docs\/react\.md:/)]));
  await rm(DIR, { recursive: true, force: true });
  for (const { file, code } of found) {
    await mkdir(dirname(join(DIR, file)), { recursive: true });
    await writeFile(join(DIR, file), code);
  }
  const compilerOptions = {
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    module: 'ESNext',
    moduleResolution: 'bundler',
    types: ['node'],
    jsx: 'react-jsx',
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    moduleDetection: 'force',
    // A sample named after a project file sits beside that file's neighbours.
    rootDirs: [ROOT, DIR],
    paths: { '@ai-assistant/react': [join(ROOT, 'packages/react/src/ai-assistant.ts')] },
  };
  const files = found.map(({ file }) => join(DIR, file));
  // The project's own declarations of modules that ship none (stopword), and of Vite's `import.meta.env`.
  const include = ['server', 'src'].map((folder) => join(ROOT, folder, '**/*.d.ts'));
  await writeFile(join(DIR, 'tsconfig.json'), JSON.stringify({ compilerOptions, files, include }));
  const where = new Map(found.map(({ file, where }) => [file, where]));
  const result = await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(DIR, 'tsconfig.json')], {
    cwd: DIR,
  }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  // The compiler's lines name the written file; the document's line says where to fix it.
  const errors = result.replace(/^([\w./-]+\.tsx?)\((\d+),\d+\)/gm, (_, file, line) => {
    return `${where.get(file) ?? file} (line ${line} of the sample)`;
  });
  expect(errors).toBe('');
}, 120_000);
