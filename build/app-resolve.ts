import type { UserConfig } from 'vite';

/** How the app's imports resolve: in the client build, and where build/render-card.ts renders the card. */
export const appResolve: UserConfig['resolve'] = {
  alias: [
    // @xstate/react imports the shims that give React 17 and older a useSyncExternalStore; React 19 has its own,
    // which the shim would only look up at run time.
    {
      find: /^use-sync-external-store\/shim\/with-selector$/,
      replacement: 'use-sync-external-store/with-selector',
    },
    { find: /^use-sync-external-store\/shim$/, replacement: 'react' },
  ],
};
