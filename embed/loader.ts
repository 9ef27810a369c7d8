// The embed loader (`/embed.js`): the only file a host page fetches until a visitor opens the chat. Plain DOM, no
// React or Chakra, under its own size budget (build/embed-loader.ts). It draws a launcher in an open shadow root and,
// on the visitor's first sign of intent, frames the app (src/) in its embedded layout, shown on open.
import {
  EMBED_ACCENT_SENTINEL,
  EMBED_FRAME_TIMEOUT_MS,
  EMBED_HOST_PARAM,
  EMBED_LANG_PARAM,
  EMBED_PHONE_WIDTH,
  EMBED_THEME_PARAM,
} from '../contract/embed.ts';
import { EMBED_NAMESPACE, embedMessage, embedMessageType } from '../contract/embed-messages.ts';
import { ACCENT_VARIABLE } from '../contract/page-settings.ts';

// The launcher's colours from the theme (src/theme.ts `launcherColors`), as CSS text that follows `color-scheme`: baked
// in by the build (build/embed-loader.ts), so that the loader carries no theme code.
declare const __LAUNCHER_BG__: string;
declare const __LAUNCHER_FG__: string;
declare const __LAUNCHER_RING__: string;
declare const __LAUNCHER_HALO__: string;
declare const __LAUNCHER_PANEL__: string;
declare const __LAUNCHER_SHADOW__: string;

/** What the host page's analytics can follow: the panel opened or closed, a visitor's message sent (never its text). */
export type EmbedEventName = 'open' | 'close' | 'message' | 'feedback' | 'handoff';

/**
 * The global API for a site's own buttons: `AIAssistant.open()`, `.close()`, `.toggle()`; and `.destroy()`, which
 * removes the launcher, the panel with its frame and every listener, so that a page (the React component,
 * packages/react) can load the loader again with other attributes, without a reload. `.identify(token)` gives the
 * chat the visitor's token, a JWT the site's backend signs (docs/actions.md); `null` or `''` takes it back.
 */
export interface EmbedApi {
  open(): void;
  close(): void;
  toggle(): void;
  destroy(): void;
  identify(token?: string | null): void;
}

/** And for its analytics: `AIAssistant.on(name, handler)`, `.off(name, handler)`. */
export interface EmbedEvents {
  on(name: EmbedEventName, handler: (event: Event) => void): void;
  off(name: EmbedEventName, handler: (event: Event) => void): void;
}

declare global {
  interface Window {
    AIAssistant?: EmbedApi & EmbedEvents;
  }
}

/**
 * The tag that loaded this file, chosen only by this file's own address or by the site owner's mark: never the first
 * `/embed.js` on the page, which may be another vendor's, whose origin would then be framed and trusted.
 * `currentScript` is read at once, while this classic script runs. It is null when the tag is a module, or when a tag
 * manager runs this file's text itself. A stack trace's second line then names the address this code came from: in
 * Chromium it is the first frame (after the `Error` line), elsewhere the second frame, this file's own top level that
 * calls this; code that another script `eval`s carries that script's address only inside an eval frame, which the
 * pattern (an address at the end of the line, after a space, `(` or `@`) does not take. Failing that, the tag marked
 * `data-ai-assistant`.
 */
const findScript = () => {
  const own = /([^\s(@]+):\d+:\d+\)?$/.exec(`${new Error().stack}`.split('\n')[1]);
  return (
    [...document.scripts].find((tag) => tag.src === own?.[1]) ?? document.querySelector('script[data-ai-assistant]')
  );
};
const script = (document.currentScript ?? findScript()) as HTMLScriptElement | null;

if (script && !window.AIAssistant) {
  const data = script.dataset;
  const side = data.position === 'left' ? 'left' : 'right';
  // The launcher's distance from the page's bottom and side corner, in CSS px from 0 to 400 (so that it can clear a
  // site's own fixed footer or button); anything else is the default 20.
  const offset = (value?: string) => (value && +value >= 0 && +value <= 400 ? +value : 20);
  const bottom = offset(data.offsetBottom);
  const inset = offset(data.offsetSide);
  // The server names the launcher after the site's title, in the visitor's language (server/pages/page-html.ts).
  const label = data.label || 'Chat with AI Assistant';
  const theme = data.theme === 'light' || data.theme === 'dark' ? data.theme : '';
  // Where the panel fills the screen: there it is modal, and it never opens by itself over the whole site.
  const phone = () => innerWidth <= EMBED_PHONE_WIDTH;
  // Beside this file: the app at the site's root, or under its BASE_PATH (`/assistant/embed.js` frames `/assistant/`),
  // in the tag's theme and language: as it is (`tab`) in a tab of its own, or in the frame, which names this page.
  const chat = new URL('.', script.src);
  if (theme) chat.searchParams.set(EMBED_THEME_PARAM, theme);
  if (data.lang) chat.searchParams.set(EMBED_LANG_PARAM, data.lang);
  const tab = chat.href;
  const appOrigin = chat.origin;
  chat.searchParams.set(EMBED_HOST_PARAM, location.origin);

  // The colours follow the launcher's `color-scheme`: the system's, or the snippet's `data-theme`.
  // The custom element's name keeps generic host selectors (`div`, `.widget`) off it; `:host` rules marked important
  // win over the host page's, and `all: initial` stops its inherited fonts and colours at the shadow boundary. Custom
  // properties still cross it: the accent is set here, so that only the site's file (baked in by the server) sets it.
  // The panel is a <dialog>: beside the page on a wide screen (`show()`), modal and full-screen on a phone
  // (`showModal()`, styled by `:modal`), where the browser itself then keeps the keyboard and screen readers inside it
  // and closes it with Escape.
  const host = document.createElement('ai-assistant-embed');
  const root = host.attachShadow({ mode: 'open' });
  // Every listener outside the shadow root (on the page, the window, the viewport) goes with `destroy()`; those inside
  // it go with the launcher. The controller itself is the listeners' options: they read its `signal` (and nothing
  // else it has), which costs the loader fewer bytes than an object of its own.
  const until = new AbortController();
  // A constructed sheet, not a <style>: a host page whose CSP allows only nonce'd styles blocks the latter, not this.
  // Both buttons (the launcher, and the notice's Close chat) and the panel drop every style but the font and colours
  // the host's `all:initial` leaves them (`all:unset`), and the buttons are the accent, as Send is in the card. The
  // launcher is `[aria-expanded]`; none of them is more specific than `:focus-visible`, which comes after them so
  // that its ring wins over their `all:unset`. The notice (`div`) is spaced as the card is; its text is the scheme's
  // (the browser's own text colour, which follows `color-scheme` as the panel does) and its link the ring's blue,
  // readable on the panel in both schemes where the accent is not.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(`
:host{all:initial!important;position:fixed!important;z-index:2147483647!important;color-scheme:${theme || 'light dark'}!important;font:16px/1.5 system-ui!important;${ACCENT_VARIABLE}:${EMBED_ACCENT_SENTINEL}!important}
:not([hidden])+div{display:none}
button,dialog{all:unset}
button{background:${__LAUNCHER_BG__};color:${__LAUNCHER_FG__};cursor:pointer;padding:8px 16px;border-radius:6px}
[aria-expanded]{position:fixed;bottom:${bottom}px;${side}:${inset}px;padding:16px;border-radius:50%;display:grid;box-shadow:0 2px 8px ${__LAUNCHER_SHADOW__}}
:focus-visible{outline:3px solid ${__LAUNCHER_RING__};outline-offset:2px;box-shadow:0 0 0 2px ${__LAUNCHER_HALO__}}
dialog{position:fixed;bottom:${bottom + 68}px;${side}:${inset}px;width:min(400px,100vw - ${inset + 20}px);height:min(640px,100vh - ${bottom + 88}px);border-radius:12px;overflow:hidden;box-shadow:0 8px 32px ${__LAUNCHER_SHADOW__};background:${__LAUNCHER_PANEL__}}
div{padding:12px;display:grid;gap:12px}
a{color:${__LAUNCHER_RING__}}
dialog:not([open]){display:none}
iframe{border:0;width:100%;height:100%}
dialog:modal{inset:0;width:auto;height:auto;padding:env(safe-area-inset-top) env(safe-area-inset-right) env(safe-area-inset-bottom) env(safe-area-inset-left)}
`);
  root.adoptedStyleSheets = [sheet];
  // No `type`: the launcher is in no form, it submits nothing. The icon needs no `aria-hidden`: the button's
  // `aria-label` is its whole name. The icon's 24 units are its 24 px: no `viewBox`.
  // After the frame's place, the panel's notice for a frame that does not answer (hidden while the frame shows: the
  // style sheet's `:not([hidden])+div`, the frame being all that comes before it): it says so, links to the chat in a
  // tab of its own and closes the panel (`method=dialog`). The server puts its texts in the visitor's language, as it does the launcher's name. Attributes
  // go unquoted and the last elements unclosed (the parser closes them): bytes of the loader's budget.
  root.innerHTML = `<button aria-expanded=false><svg width=24 height=24 fill=none stroke=currentColor stroke-width=2><path d="M12 8V4H8M2 14h2M20 14h2M15 13v2M9 13v2"/><rect x=4 y=8 width=16 height=12 rx=2 /></svg></button><dialog><div role=alert>The chat could not load. <a href="${tab}" target=_blank>Open it in a new tab</a><form method=dialog><button>Close chat`;
  const button = root.firstChild as HTMLButtonElement;
  const panel = root.lastChild as HTMLDialogElement;
  button.ariaLabel = label;
  let frame: HTMLIFrameElement | undefined;
  let ready = 0;
  // With the site's `persist: tab` (the frame says `keep`), whether the panel is open, for the tab's next page: one
  // session-storage key, never written otherwise. A panel reopened so stays `still`: it leaves the focus to the page.
  // Where the browser refuses storage, writing throws: the panel then just opens and closes, and is not remembered.
  let keep = 0;
  let still = 0;
  const remember = () => {
    try {
      if (keep) sessionStorage[EMBED_NAMESPACE] = +panel.open;
    } catch {}
  };
  // The host page's handlers: an EventTarget keeps one that throws from stopping the others, in a few bytes.
  const events = new EventTarget();
  const emit = (name: EmbedEventName, init?: CustomEventInit) => events.dispatchEvent(new CustomEvent(name, init));
  // The visitor's token from the site (`identify`): kept in this variable alone, never in an address, storage or the
  // DOM, and told only to the frame at the app's origin. Told again when the frame says `ready`, so that a token given
  // before the app listens (or before there is a frame at all) still arrives.
  let token: string | null | undefined;
  const identify = (value: typeof token) => {
    token = value;
    frame?.contentWindow?.postMessage({ ...embedMessage('identify'), token }, appOrigin);
  };

  // The app focuses its message input when told the panel is open; the frame itself must hold the focus first. Focusing
  // a frame that has it already would take it from whatever holds it inside (a box the visitor is typing into). The
  // frame is in the shadow root: the page's `activeElement` names only the root's host.
  const focusChat = () => {
    if (still) {
      still = 0;
      return;
    }
    if (root.activeElement !== frame) frame?.focus();
    frame?.contentWindow?.postMessage(embedMessage('open'), appOrigin);
  };

  // The frame loads in the hidden panel as soon as the visitor shows intent (points at, touches or focuses the launcher:
  // a touch fires `pointerenter` too), so that a click finds the app started; the host page still fetches nothing of
  // the app before that.
  const warm = () => {
    if (frame) return;
    frame = document.createElement('iframe');
    frame.title = 'AI Assistant chat';
    frame.src = chat.href;
    panel.prepend(frame);
    // The frame has a few seconds to say it is `ready`. If it has not (the server refuses this site in FRAME_ANCESTORS,
    // or does not answer), it is hidden, which shows the panel's notice in its place; a frame that answers later comes
    // back (`ready`, below).
    setTimeout(() => ((frame as HTMLIFrameElement).hidden = !ready), EMBED_FRAME_TIMEOUT_MS);
  };

  // Beside the page the panel opens by its `open` attribute: `show()` would move the focus into it at once, which a panel
  // reopened by itself (`still`) must not do; the focus goes to the chat through `focusChat` alone.
  const open = () => {
    warm();
    if (!panel.open) {
      if (phone()) panel.showModal();
      else panel.open = true;
      button.ariaExpanded = 'true';
      emit('open');
      remember();
    }
    if (ready) focusChat();
  };

  // Hidden, not removed: the conversation lives in the frame for the rest of the page view. Escape on a modal panel
  // closes it natively: every way out ends in the dialog's `close` event.
  const close = () => panel.close();
  panel.onclose = () => {
    button.ariaExpanded = 'false';
    button.focus();
    emit('close');
    remember();
  };

  const toggle = () => (panel.open ? close() : open());

  // On a phone the panel fills the screen. An on-screen keyboard shrinks the visual viewport, not the layout viewport the
  // panel is fixed to: the panel takes the visual one's height, so that the message box stays above the keyboard. Set
  // through the CSSOM, which a host page's CSP does not block.
  const view = visualViewport;
  view?.addEventListener(
    'resize',
    () => {
      panel.style.height = phone() ? `${view.height}px` : '';
    },
    until,
  );

  button.onclick = toggle;
  button.onpointerenter = button.onfocus = warm;
  document.addEventListener(
    'keydown',
    (event) => {
      if (event.key === 'Escape' && !event.defaultPrevented) close();
    },
    until,
  );
  // Only our frame, from the app's origin: any other window or origin could be a script pretending to be the chat.
  addEventListener(
    'message',
    (event) => {
      // Before the frame exists no message's source is `undefined`.
      if (event.source !== frame?.contentWindow || event.origin !== appOrigin) return;
      const type = embedMessageType(event.data);
      if (type === 'ready') {
        ready = 1;
        (frame as HTMLIFrameElement).hidden = false;
        if (panel.open) focusChat();
        identify(token);
      } else if (type === 'close') {
        close();
      } else if (type === 'keep') {
        keep = 1;
        remember();
      } else if (type === 'page') {
        // Asked for only with the site's `page_context`: the path and title, never the query or the fragment, which can
        // carry a visitor's tokens or e-mail address. The answer is the question (a `page` message of ours) with them.
        (event.source as Window).postMessage(
          { ...event.data, path: location.pathname, title: document.title },
          appOrigin,
        );
      } else if (type) {
        // The rest are the host page's events: `message`, `handoff`, and `feedback`, whose `detail` (the vote's
        // `rating` and `reason`) becomes the event's.
        emit(type as EmbedEventName, event.data);
      }
    },
    until,
  );

  window.AIAssistant = {
    open,
    close,
    toggle,
    identify,
    on: (name, handler) => events.addEventListener(name, handler),
    off: (name, handler) => events.removeEventListener(name, handler),
    destroy: () => {
      until.abort();
      host.remove();
      delete window.AIAssistant;
    },
  };
  const mount = () => {
    document.body.append(host);
    // Never on a phone, where the panel is modal. Read once and removed: the frame's `keep` writes it again, so a site
    // that stops keeping (or another assistant on this origin) is not reopened page after page. Where the browser
    // refuses storage, reading it throws: nothing reopens.
    try {
      still = +!phone() & sessionStorage[EMBED_NAMESPACE];
      delete sessionStorage[EMBED_NAMESPACE];
    } catch {}
    if (still || ((data.open ?? 'false') !== 'false' && !phone())) open();
  };
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, until);
}
