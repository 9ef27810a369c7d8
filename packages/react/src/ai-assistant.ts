// The AI Assistant for React sites: a thin wrapper of the assistant's own embed loader (`embed.js`, embed/loader.ts in
// the assistant's repository), which draws the launcher and the chat's frame. The component only adds what React
// needs: it loads that one script per page, whatever React does (StrictMode's double effects, a remount, a second
// component), loads it again when its attributes change, and removes everything on unmount. `window` and `document`
// are touched only in effects, so the component renders nothing on a server and nothing in the page's own tree.
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';

/** The host events: the panel opened or closed, a visitor's message sent (never its text), a reply rated. */
export type AIAssistantEventName = 'open' | 'close' | 'message' | 'feedback' | 'handoff';

export interface AIAssistantProps {
  /** The assistant's address: `https://assistant.example.com`, or a sub-path such as `https://example.com/assistant/`. */
  src: string;
  /** Which corner the launcher sits in (default `right`). */
  position?: 'left' | 'right';
  /** The launcher's distance from the bottom of the window, in CSS px from 0 to 400 (default 20). */
  offsetBottom?: number;
  /** The launcher's distance from the side of the window, in CSS px from 0 to 400 (default 20). */
  offsetSide?: number;
  /** The launcher's name for screen readers (default: the assistant's, in the visitor's language). */
  label?: string;
  /** `light` or `dark` (default: the visitor's system setting). */
  theme?: 'light' | 'dark' | 'auto';
  /** The chat's language, a BCP 47 tag (default: the visitor's browser's). */
  lang?: string;
  /** Opens the panel once loaded, on a wide screen (never on a phone, where the panel fills the screen). */
  defaultOpen?: boolean;
  /** Hears the host events; the event's `type` is the {@link AIAssistantEventName}. */
  onEvent?: (event: Event) => void;
  /**
   * The visitor's token: a JWT that the site's backend signs (the assistant's docs/actions.md), for the actions that
   * need to know who the visitor is. Told to the chat's frame alone, never put in an address, storage or the page;
   * leaving it out (the visitor signed out) takes it back.
   */
  identity?: string;
}

/** What a `ref` gives the site's own buttons. */
export interface AIAssistantHandle {
  open(): void;
  close(): void;
  toggle(): void;
}

/** The loader's global API (embed/loader.ts `EmbedApi` and `EmbedEvents`), as far as this component uses it. */
interface LoaderApi extends AIAssistantHandle {
  on(name: string, handler: (event: Event) => void): void;
  destroy(): void;
  /** Missing from an assistant older than the component: it then knows no visitor. */
  identify?(token: string | null): void;
}

const EVENT_NAMES: AIAssistantEventName[] = ['open', 'close', 'message', 'feedback', 'handoff'];

const api = () => (window as { AIAssistant?: LoaderApi }).AIAssistant;

// The page's one loader, shared by every instance of this module. Loading and removing it take turns in one queue: a
// script that is still loading cannot be stopped, so the next one waits for it (and the panel's `open()` for both).
let queue = Promise.resolve();
// A failed job must not stop every later one.
const then = (job: () => void | Promise<void>) => {
  queue = queue.then(job).catch(console.error);
};
/** The loader's address and attributes, once it is loaded or queued to be. */
let loaded: string | undefined;
let script: HTMLScriptElement | undefined;
/** The component that draws the assistant: the first one mounted, until it unmounts. */
let owner: { current: AIAssistantProps } | undefined;
/** Whether the panel is open, so that loading the loader again with other attributes leaves it as it was. */
let isOpen = false;
let removal: ReturnType<typeof setTimeout> | undefined;

/** The loader's `data-` attributes for these props: its snippet's, as a site owner would write them. */
function dataAttributes({ position, offsetBottom, offsetSide, label, theme, lang }: AIAssistantProps) {
  const data: Record<string, string> = {};
  for (const [name, value] of Object.entries({ position, offsetBottom, offsetSide, label, theme, lang })) {
    if (value !== undefined) data[name] = String(value);
  }
  return data;
}

// `embed.js` in the assistant's folder: only an absolute http(s) `src` names one (not the site's own).
function loaderAddress(src: string) {
  try {
    const address = new URL('embed.js', src.endsWith('/') ? src : `${src}/`);
    if (/^https?:$/.test(address.protocol)) return address.href;
  } catch {}
}

function load(source: string) {
  const [address, attributes] = JSON.parse(source) as [string, Record<string, string>];
  const open = isOpen;
  loaded = source;
  then(
    () =>
      new Promise<void>((done) => {
        script = document.createElement('script');
        script.src = address;
        Object.assign(script.dataset, attributes, open ? { open: '' } : {});
        script.onload = script.onerror = () => {
          for (const name of EVENT_NAMES) {
            api()?.on(name, (event) => {
              if (name === 'open' || name === 'close') isOpen = name === 'open';
              owner?.current.onEvent?.(event);
            });
          }
          done();
        };
        document.head.append(script);
      }),
  );
}

function unload() {
  loaded = undefined;
  then(() => {
    api()?.destroy();
    script?.remove();
  });
}

/**
 * The assistant's launcher and chat, drawn by its embed loader outside React's tree: one per page. A second
 * `AIAssistant` while one is mounted says so in the console and draws nothing.
 */
export const AIAssistant = forwardRef<AIAssistantHandle, AIAssistantProps>(function AIAssistant(props, ref) {
  const self = useRef(props);
  self.current = props;
  const { src, defaultOpen, identity } = props;
  // One string, so that the effect runs again only when an attribute really changes.
  const source = JSON.stringify([loaderAddress(src), dataAttributes(props)]);

  useImperativeHandle(
    ref,
    () => ({
      open: () => then(() => api()?.open()),
      close: () => then(() => api()?.close()),
      toggle: () => then(() => api()?.toggle()),
    }),
    [],
  );

  useEffect(() => {
    if (!JSON.parse(source)[0]) {
      console.warn(`AIAssistant: src "${self.current.src}" is no https:// address; nothing is drawn.`);
      return;
    }
    if ((owner && owner !== self) || (!loaded && api())) {
      console.warn('AIAssistant: the assistant is on this page already; this one draws nothing.');
      return;
    }
    owner = self;
    // StrictMode's second run, or a remount in the same commit: the loader is still there.
    clearTimeout(removal);
    if (loaded !== source) {
      if (loaded) unload();
      else isOpen = Boolean(defaultOpen);
      load(source);
    }
    return () => {
      owner = undefined;
      // Removed after this commit, unless an effect (StrictMode's, a remount's, new props') keeps it.
      removal = setTimeout(unload);
    };
  }, [source, defaultOpen]);

  // After the loader's: told to each loader this component loads, once loaded.
  useEffect(() => {
    if (owner === self && loaded === source) then(() => api()?.identify?.(identity ?? null));
  }, [source, identity]);

  return null;
});
