import { useSyncExternalStore } from 'react';

/** A module kept out of the first paint: imported once, on first need, then at hand synchronously. */
export interface LazyModule<T> {
  /** Imports the module (once). A failed download is forgotten, so the next call tries again. */
  load(): Promise<T>;
  /** The module once imported, `undefined` until then. */
  current(): T | undefined;
  /** Calls `listener` when the module arrives; a first subscriber also asks for it. Returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** Wraps a dynamic `import()` (written at the call site, so the bundler still makes it a chunk of its own). */
export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  const listeners = new Set<() => void>();
  const load = () => {
    loading ??= importer().then(
      (module) => {
        loaded = module;
        for (const listener of listeners) listener();
        return module;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return {
    load,
    current: () => loaded,
    subscribe(listener) {
      listeners.add(listener);
      // Until it arrives, whoever renders without it goes on without it.
      load().catch(() => undefined);
      return () => listeners.delete(listener);
    },
  };
}

/** The card served in `index.html` was rendered before any lazy module could arrive; hydration must match it. */
const notYetLoaded = () => undefined;

/** The module once imported (asked for on first render), `undefined` until then (and in the build-time render). */
export function useLazyModule<T>(lazy: LazyModule<T>): T | undefined {
  return useSyncExternalStore(lazy.subscribe, lazy.current, notYetLoaded);
}
