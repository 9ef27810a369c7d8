import { MAX_IDENTITY_LENGTH } from '../../contract/actions';
import { EMBED_HOST_PARAM } from '../../contract/embed';
import {
  EMBED_MESSAGE_TYPES,
  type EmbedMessageType,
  embedMessage,
  embedMessageType,
} from '../../contract/embed-messages';
import type { HostPageContext } from '../../contract/llm';
import { MAX_PAGE_TITLE_LENGTH, type PageSettings } from '../../contract/page-settings';

/**
 * The origin of the page that framed the app through the embed loader, or `undefined` when the app is not in a
 * frame, the loader's `embed` parameter is not an origin, or the browser names another parent (`ancestorOrigins`,
 * Chromium and Safari). Whether that origin may frame the app at all is the server's `frame-ancestors` policy, which
 * the browser enforces before this code ever runs: a page the policy refuses gets no app to talk to.
 */
export function hostOrigin(location: Location = window.location): string | undefined {
  if (window.parent === window) return undefined;
  const declared = new URLSearchParams(location.search).get(EMBED_HOST_PARAM) ?? '';
  let origin: string;
  try {
    origin = new URL(declared).origin;
  } catch {
    return undefined;
  }
  if (origin !== declared) return undefined;
  const parent = location.ancestorOrigins?.[0];
  return parent === undefined || parent === origin ? origin : undefined;
}

/** Longer than a visitor token ever is (a few hundred characters). */

/** Three base64url parts, the last (the signature) possibly empty: the shape of a JWT in its compact form. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/**
 * Takes the token the loader says the site gave (`identify`): a JWT-shaped string sets it, `null`, `undefined` or `''`
 * takes it back (the visitor signed out); anything else is ignored, the token left as it was, with a word for the
 * site's developer in the console (never the value: it may be someone's token).
 */
function identifyVisitor(hostPage: HostPageContext, token: unknown) {
  if (token === null || token === undefined || token === '') {
    hostPage.identity = undefined;
  } else if (typeof token === 'string' && token.length <= MAX_IDENTITY_LENGTH && JWT_SHAPE.test(token)) {
    hostPage.identity = token;
  } else {
    console.warn(
      'AIAssistant.identify: the token is no JWT (three base64url parts, at most 4,096 characters); ignored.',
    );
  }
}

/** The app's side of the conversation with the loader. */
export interface HostPage {
  /** Tells the loader (and only it: an explicit target origin) something, with what else the message carries. */
  send(type: EmbedMessageType, more?: object): void;
  /**
   * Calls `handler` for each message of ours from the parent window at the host's origin, with the message itself;
   * returns the unsubscribe.
   */
  listen(handler: (type: EmbedMessageType, data: Record<string, unknown>) => void): () => void;
}

/** Talks to the page at `origin` that framed the app. Messages from any other window or origin are ignored. */
export function connectHostPage(origin: string): HostPage {
  return {
    send(type, more) {
      window.parent.postMessage({ ...embedMessage(type), ...more }, origin);
    },
    listen(handler) {
      const onMessage = (event: MessageEvent) => {
        if (event.source !== window.parent || event.origin !== origin) return;
        const type = embedMessageType(event.data);
        if (type && EMBED_MESSAGE_TYPES.includes(type)) handler(type, event.data);
      };
      window.addEventListener('message', onMessage);
      return () => window.removeEventListener('message', onMessage);
    },
  };
}

/**
 * Greets the page that framed the app as soon as the embedded card's code has arrived, before React has taken over the
 * served card: tells the loader it is ready and, on each `open`, focuses whichever message box `root` holds (the
 * served card's, then the app's), so that the visitor can type at once. With the site's `persist: tab` it first asks
 * the loader to keep the panel's state for the tab's next page; with `page_context` it asks for the host page's path
 * and title, which then go with each message (`hostPage.current`). The visitor's token, whenever the site gives one
 * (`identify`), goes with each message too (`hostPage.identity`): `hostPage` is the object the chat machine is started
 * with. `undefined` when no allowed host framed the app (`origin`: the host's, {@link hostOrigin}).
 */
export function greetHostPage(
  root: HTMLElement,
  settings: PageSettings,
  hostPage: HostPageContext,
  origin = hostOrigin(),
): HostPage | undefined {
  if (!origin) return undefined;
  const host = connectHostPage(origin);
  host.listen((type, data) => {
    if (type === 'open') root.querySelector<HTMLInputElement>('input[name="message"]')?.focus();
    if (type === 'page' && settings.pageContext && typeof data.path === 'string' && typeof data.title === 'string') {
      hostPage.current = { origin, path: data.path, title: data.title.slice(0, MAX_PAGE_TITLE_LENGTH) };
    }
    if (type === 'identify') identifyVisitor(hostPage, data.token);
  });
  if (settings.persist === 'tab') host.send('keep');
  if (settings.pageContext) host.send('page');
  host.send('ready');
  return host;
}
