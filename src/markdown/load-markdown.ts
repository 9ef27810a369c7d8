import { lazyModule, useLazyModule } from '../lazy-module';

// The Markdown renderer is its own chunk, off the first paint: asked for when the page is idle, or when the first
// message is shown (the first send, when it is needed soon), whichever comes first. Meanwhile replies stay plain text.
const markdown = lazyModule(() => import('./rich-reply'));

/** Loads the Markdown renderer (once). It never rejects: after a failed download the next call tries again. */
export const loadMarkdown = (): Promise<unknown> => markdown.load().catch(() => undefined);

/** The Markdown renderer once it has loaded, `undefined` until then. */
export const useMarkdown = () => useLazyModule(markdown);
