import { useSyncExternalStore } from 'react';

type RichReplyModule = typeof import('./rich-reply');

let loaded: RichReplyModule | undefined;
let loading: Promise<void> | undefined;
const listeners = new Set<() => void>();

/**
 * Loads the Markdown renderer (its own chunk, off the first paint) once: when the page is idle, or when the first
 * message is shown, whichever comes first. It never rejects; after a failed download the next call tries again, and
 * meanwhile replies stay plain text.
 */
export function loadMarkdown(): Promise<void> {
  loading ??= import('./rich-reply').then(
    (module) => {
      loaded = module;
      for (const listener of listeners) listener();
    },
    () => {
      loading = undefined;
    },
  );
  return loading;
}

// The first message on screen subscribes: that is the first send, when the renderer is needed soon if not yet here.
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  void loadMarkdown();
  return () => listeners.delete(listener);
};

/** The Markdown renderer once it has loaded, `undefined` until then. */
export function useMarkdown(): RichReplyModule | undefined {
  return useSyncExternalStore(subscribe, () => loaded);
}
