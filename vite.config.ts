import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { appChunkGroup } from './build/app-chunk.ts';
import { appResolve } from './build/app-resolve.ts';
import { chakraTheme } from './build/chakra-theme.ts';
import { compileHints } from './build/compile-hints.ts';
import { embedLoader } from './build/embed-loader.ts';
import { machineDescriptions } from './build/machine-descriptions.ts';
import { plainDynamicImports } from './build/plain-dynamic-imports.ts';
import { prerenderCard } from './build/prerender-card.ts';
import { serverWorker } from './build/server-worker.ts';
import { sizeBudget } from './build/size-budget.ts';
import { sqlMigrations } from './build/sql-migrations.ts';
import { startUpPreload } from './build/start-up-preload.ts';
import { llmServer } from './server/vite/vite-plugin.ts';
import { VitestSlowestFiles } from './testing/slowest-files.ts';

/**
 * The card's test files that need modules of their own: they mock a module (`vi.mock`), change the catalogue, or check
 * what the card shows before a lazy part (the Markdown renderer, the reply's actions) has loaded, which a file run
 * earlier in the same worker would have loaded.
 */
const CARD_FILES_ON_FRESH_MODULES = [
  'src/chat/fault-boundary.test.tsx',
  'src/chat/handoff.test.tsx',
  'src/chat/kept-conversation-language.test.tsx',
  'src/chat/message-bubble.test.tsx',
  'src/chat/new-conversation.test.tsx',
  'src/chat/reply-actions.test.tsx',
  'src/llm/fetch-reply-deadline.test.ts',
  'src/markdown/rich-reply.test.tsx',
  'src/system.test.tsx',
];

export default defineConfig({
  plugins: [
    plainDynamicImports(),
    machineDescriptions(),
    react(),
    chakraTheme(),
    compileHints(),
    startUpPreload(),
    sizeBudget(),
    embedLoader(),
    prerenderCard(),
    llmServer(),
    sqlMigrations(),
    serverWorker(),
  ],
  resolve: appResolve,
  // The dev server pre-bundles what the app's own pages import (the visitor's and the owner's), found from them alone:
  // left to itself, Vite scans every .html file in the tree, the bench's pages too, whose imports the app does not have.
  optimizeDeps: { entries: ['index.html', 'owner.html'] },
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    // Every browser this targets supports module preload natively. The lazy chunks import only start-up chunks (the
    // entry's and its stages', see src/start.ts), loaded by then: they need no preload list (see
    // build/plain-dynamic-imports.ts).
    modulePreload: {
      polyfill: false,
      resolveDependencies: (_file, deps, { hostType }) => (hostType === 'js' ? [] : deps),
    },
    rolldownOptions: {
      // The visitor's page, and the owner's (/owner): an entry of its own, outside the visitor's start-up budget.
      input: {
        index: fileURLToPath(new URL('index.html', import.meta.url)),
        owner: fileURLToPath(new URL('owner.html', import.meta.url)),
      },
      // The bundler's timing report names plugins that took long on a busy machine: nothing an owner can act on.
      checks: { bundlerTimings: false },
      output: {
        // The start-up stages of src/start.ts, each a chunk evaluated in a task of its own: React DOM, then Chakra and
        // Emotion with the card's system, then the app (XState and all else src/main.tsx imports statically, the
        // modules its lazy chunks share included: build/app-chunk.ts).
        codeSplitting: {
          groups: [
            { name: 'react-dom', test: /node_modules\/(react|react-dom|scheduler)\// },
            {
              name: 'chakra',
              test: /node_modules\/(@chakra-ui|@emotion|@ark-ui|@zag-js|@pandacss|stylis)\/|\/src\/(system|card-base-config|theme|create-system-measure)\.ts$|chakra-theme/,
            },
            appChunkGroup({
              entry: fileURLToPath(new URL('src/start.ts', import.meta.url)),
              stage: fileURLToPath(new URL('src/main.tsx', import.meta.url)),
            }),
          ],
        },
      },
      treeshake: {
        // @emotion/react imports hoist-non-react-statics (CommonJS, which pulls in react-is) for its side effects
        // only, to keep a dependency that its own `withTheme` no longer uses; neither has any. About 1 KB of gzip.
        moduleSideEffects: (id) => (/node_modules\/(hoist-non-react-statics|react-is)\//.test(id) ? false : undefined),
        // Chakra's theme module builds its full default config (every recipe) at import time through these identity
        // helpers; declaring them pure lets the bundler drop the recipes the card does not use.
        manualPureFunctions: [
          'defineConfig',
          'defineGlobalStyles',
          'defineRecipe',
          'defineSlotRecipe',
          'defineSemanticTokens',
          'defineTokens',
        ],
      },
    },
  },
  test: {
    // The card's tests run in jsdom with the card's setup (its catalogue, its lazy parts, jest-dom); the server's, the
    // build's and the packages' in Node without it (their files need no `@vitest-environment` line): loading React and
    // Chakra for each of their files took 2 s apiece.
    projects: [
      {
        extends: true,
        test: {
          name: 'card',
          environment: 'jsdom',
          setupFiles: ['./vitest.setup.ts'],
          include: ['{machines,src,owner}/**/*.test.{ts,tsx}'],
          exclude: CARD_FILES_ON_FRESH_MODULES,
          // The files of a worker share its loaded modules (React, Chakra, the card), rather than loading them again
          // for each file: these 18 files took 225 s (117 s in their setup), 120 s shared (57 s), with the machine's
          // load at 7 to 16. The setup file still runs before each file (the English catalogue).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'card-fresh',
          environment: 'jsdom',
          setupFiles: ['./vitest.setup.ts'],
          include: CARD_FILES_ON_FRESH_MODULES,
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          globalSetup: ['./testing/server-build-setup.ts'],
          setupFiles: ['./testing/node-setup.ts'],
          // The files of a worker share its loaded modules: importing Hono, the openai client and the server's rooms
          // again for each file was most of a small file's time (23 server files: 62 s, 29 s shared). They share no
          // state: no file mocks a module, and those that set variables or fake timers restore them.
          isolate: false,
          include: ['{server,contract,build,locales,packages,deploy,testing}/**/*.test.{ts,tsx}'],
        },
      },
    ],
    // The ten slowest files at the end: where the command's time goes.
    reporters: ['default', new VitestSlowestFiles()],
    // Every core: the files run side by side (the default leaves one core free, which on 2 cores is half the machine).
    maxWorkers: '100%',
    restoreMocks: true,
    // A test's time limit is a guard against a hang, not a measure: on a busy machine a model-based path that types
    // and renders takes several times what it takes on an idle one. Tests that are about time set their own.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
