import type { Plugin } from 'vite';
import { startUpFileNames } from './size-budget.ts';

/**
 * V8's explicit compile hint: as the very first line of a script, it makes Chromium (136 and later) compile all of the
 * script's functions eagerly, on a background thread while the script streams in, instead of lazily on the main thread
 * when each is first called. Only the first line counts.
 */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

/**
 * Puts the compile hint on every chunk that start-up runs (`startUpFileNames`: the entry, its stages and their
 * imports), whose functions nearly all run on load. In `generateBundle`, after minification (which would drop the
 * comment) and before the size budget and the precompressed `.gz` and `.br` copies, which carry it.
 */
export function compileHints(): Plugin {
  return {
    name: 'compile-hints',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      for (const fileName of startUpFileNames(bundle)) {
        const chunk = bundle[fileName];
        if (chunk.type === 'chunk' && !chunk.code.startsWith(COMPILE_HINT))
          chunk.code = `${COMPILE_HINT}\n${chunk.code}`;
      }
    },
  };
}
