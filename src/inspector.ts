import type { InspectionEvent, Observer } from 'xstate';

/**
 * The Stately inspector, only in development and only when the URL asks for it (`?inspect`). In a production build
 * `import.meta.env.DEV` is `false`, so the import below is dropped and the package never ships.
 */
export async function inspectIfAsked(): Promise<Observer<InspectionEvent> | undefined> {
  if (!import.meta.env.DEV || !new URLSearchParams(window.location.search).has('inspect')) {
    return undefined;
  }
  const { createBrowserInspector } = await import('@statelyai/inspect');
  return createBrowserInspector().inspect;
}
