import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

/**
 * Chakra's theme module imports every colour palette, and its tokens cannot be imported one by one. In the production
 * build, resolve its two palette modules to `src/palette.ts`, which keeps only the colours this card uses.
 */
export function chakraPalette(): Plugin {
  const palette = fileURLToPath(new URL('../src/palette.ts', import.meta.url));
  return {
    name: 'chakra-palette',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      const fromChakraTheme = importer?.replace(/\\/g, '/').endsWith('@chakra-ui/react/dist/esm/theme/index.js');
      if (fromChakraTheme && (source === './tokens/colors.js' || source === './semantic-tokens/colors.js')) {
        return palette;
      }
      return null;
    },
  };
}
