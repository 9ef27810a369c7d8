import { fileURLToPath } from 'node:url';
import { build, type Plugin, type Rolldown } from 'vite';
import { EMBED_LOADER_PATH } from '../contract/embed.ts';
import { launcherColors, lightDark } from '../src/theme.ts';
import { gzipBytes } from './size-budget.ts';

/**
 * The embed loader's limit: every page of a host site downloads it, whether or not anyone chats. 2,048 B until the
 * panel's notice took the panel's look (issue 46), 2,072 B until the site could name its visitor to the chat
 * (`AIAssistant.identify`, issue 49): each time what that costs beyond the bytes found in the loader itself.
 */
export const EMBED_BUDGET_BYTES = 2100;

const LOADER_ENTRY = fileURLToPath(new URL('../embed/loader.ts', import.meta.url));

/**
 * The launcher's colours as CSS text, baked into the loader (`__LAUNCHER_BG__` and the like, declared there): the
 * theme's shapes and the code that reads them would cost the loader about 120 B of its budget.
 */
const LAUNCHER_COLOR_DEFINES = Object.fromEntries(
  Object.entries(launcherColors).map(([name, color]) => [
    `__LAUNCHER_${name.toUpperCase()}__`,
    // A colour that is the same in both schemes needs no light-dark(); short, lower-case hex repeats better under gzip.
    JSON.stringify(
      lightDark(color)
        .toLowerCase()
        .replace(/#([\da-f])\1([\da-f])\2([\da-f])\3\b/g, '#$1$2$3')
        .replace(/light-dark\(([^,()]+),\1\)/, '$1')
        // The accent's variable with a fallback in each scheme is the variable with one fallback that follows it.
        .replace(/light-dark\(var\(([\w-]+),([^()]+)\),var\(\1,([^()]+)\)\)/, 'var($1,light-dark($2,$3))'),
    ),
  ]),
);

/**
 * The loader's style sheet is written a rule a line, for reading; the browser needs none of those line breaks, and the
 * minifier keeps a template literal as it is: they go here, before it (a few bytes of the loader's budget).
 */
const styleLinesJoined: Plugin = {
  name: 'embed-loader-style-lines',
  transform(code, id) {
    if (id !== LOADER_ENTRY) return undefined;
    return code.replace(
      /(replaceSync\(`)([^`]*)`/,
      (_, call: string, css: string) => `${call}${css.replace(/\n/g, '')}\``,
    );
  },
};

/** Bundles `embed/loader.ts` on its own into one minified classic script (an `async` script tag cannot import). */
export async function bundleLoader(): Promise<string> {
  const result = await build({
    configFile: false,
    envDir: false,
    publicDir: false,
    logLevel: 'warn',
    define: LAUNCHER_COLOR_DEFINES,
    plugins: [styleLinesJoined],
    build: {
      write: false,
      minify: true,
      target: 'es2020',
      modulePreload: false,
      rolldownOptions: {
        input: LOADER_ENTRY,
        output: { format: 'iife' },
        optimization: { inlineConst: { mode: 'all', pass: 2 } },
      },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((output) => output.output).filter((file) => file.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`The embed loader must be one file, not ${chunks.length}`);
  return chunks[0].code;
}

/** The loader's gzip size (level 9, as precompressed for the server) against its budget. */
export function checkLoaderBudget(code: string, budget = EMBED_BUDGET_BYTES) {
  const bytes = gzipBytes(code);
  const report = `  ${EMBED_LOADER_PATH.slice(1).padEnd(44)} ${String(bytes).padStart(8)} B gzip (budget ${budget} B, ${((bytes / budget) * 100).toFixed(1)}%)`;
  return { gzipBytes: bytes, ok: bytes <= budget, report };
}

/**
 * Adds the embed loader to the client build at its fixed address (`/embed.js`, unhashed: the snippet on host pages
 * cannot change), built as its own entry so it shares no chunk with the app, and fails the build when it grows past
 * its budget, printing its size either way. The dev server bundles it per request (server/vite/vite-plugin.ts), so that
 * `public/embed-example.html` works there too.
 */
export function embedLoader(budget = EMBED_BUDGET_BYTES): Plugin {
  return {
    name: 'embed-loader',
    async generateBundle() {
      if (this.environment.name !== 'client') return;
      const code = await bundleLoader();
      const { ok, report } = checkLoaderBudget(code, budget);
      if (!ok) this.error(`The embed loader is over its size budget:\n${report}`);
      this.info(`embed loader within budget (gzip level 9, as served):\n${report}`);
      this.emitFile({ type: 'asset', fileName: EMBED_LOADER_PATH.slice(1), source: code });
    },
  };
}
