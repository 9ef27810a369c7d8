import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { llmServer } from './server/vite-plugin.ts';

/**
 * Chakra's theme module imports every colour palette, and the tokens cannot be imported one by one. In the production
 * build, resolve its two palette modules to `src/palette.ts`, which keeps only the colours this card uses.
 */
function chakraPalette(): Plugin {
  const palette = fileURLToPath(new URL('./src/palette.ts', import.meta.url));
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

export default defineConfig({
  plugins: [react(), chakraPalette(), llmServer()],
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    // Every browser this targets supports module preload natively.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      treeshake: {
        // Chakra's theme module builds its full default config (every recipe) at import time through these identity
        // helpers; declaring them pure lets the bundler drop the recipes the card does not use.
        manualPureFunctions: [
          'defineConfig',
          'defineRecipe',
          'defineSlotRecipe',
          'defineSemanticTokens',
          'defineTokens',
        ],
      },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./vitest.setup.ts'],
    include: ['{machines,src,server,contract}/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
});
