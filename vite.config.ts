import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { chakraPalette } from './build/chakra-palette.ts';
import { sizeBudget } from './build/size-budget.ts';
import { llmServer } from './server/vite-plugin.ts';

export default defineConfig({
  plugins: [react(), chakraPalette(), sizeBudget(), llmServer()],
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
    include: ['{machines,src,server,contract,build}/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
});
