import { StrictMode, startTransition } from 'react';
import { flushSync } from 'react-dom';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { EMBED_HOST_PARAM, EMBED_THEME_PARAM } from '../contract/embed';
import type { HostPageContext } from '../contract/llm';
import { chatMachine } from '../machines/chat-machine';
import { App } from './app';
import { followColorScheme } from './color-scheme';
import { inspectIfAsked } from './inspector';
import { createFetchReply, loadRequestReply, replyDelays } from './llm/fetch-reply';
import { readReplyTimers } from './llm/reply-timers';
import { loadMarkdown } from './markdown/load-markdown';
import { readPageSettings } from './page-settings';
import { watchServedCard } from './served-card';
import { getSystem } from './system';
import { readPageCatalogue, setCatalogue } from './text';

setCatalogue(readPageCatalogue());
// The page's own configuration: the request reads it with its chunk; start-up needs only the machine's delays.
const logic = chatMachine.provide({
  actors: { fetchReply: createFetchReply() },
  delays: replyDelays(readReplyTimers(import.meta.env)),
});

const root = document.getElementById('root');
if (!root) {
  throw new Error('index.html has no #root element');
}
const params = new URLSearchParams(window.location.search);
followColorScheme(params.get(EMBED_THEME_PARAM));
const settings = readPageSettings(document);
// The card rendered at build time has no welcome, no starters and no kept conversation: with any, the app replaces it.
const replaceServed = settings.welcome !== undefined || settings.starters.length > 0 || settings.persist === 'tab';

/** A macrotask later: what comes after it runs as a task of its own, once the browser has painted and handled input. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

// A send from the card served in the page, before the app has it, is noted from now on, for the app to carry out.
const served = watchServedCard(root);
/** In the embed loader's frame, what the host page tells the app: the embedded card fills it in, each request reads it. */
const hostPage: HostPageContext = {};

// Promises rather than top-level await: a module with top-level await stops the bundler from keeping the code that
// the lazy chunks share with this one in the entry chunk (it splits it into a chunk of its own, an extra request).
void Promise.all([
  // Only in the embed loader's frame: the page of its own never downloads the embedded card.
  params.has(EMBED_HOST_PARAM)
    ? import('./embed/embedded-card').then((module) => module.embeddedCard(root, settings, hostPage))
    : undefined,
  inspectIfAsked(),
  // A welcome is Markdown: it shows rendered from the first, rather than as plain text until the renderer arrives.
  settings.welcome === undefined ? undefined : loadMarkdown(),
  // Only for a site that keeps the conversation for the tab: the rest never download it.
  settings.persist === 'tab' ? import('./chat/persist-tab') : undefined,
]).then(async ([card, inspect, , keeping]) => {
  // Start-up in separate tasks, so that the browser can paint and take input between them: this module's evaluation,
  // Chakra's system, then React's take-over of the card.
  await nextTask();
  getSystem();
  await nextTask();
  if (card || replaceServed || !served) {
    // The embedded card, or one with a welcome or starters, is not the one rendered into the page at build time: it
    // replaces it, keeping whatever the visitor typed into the served one. A page with no card in it (the dev server's)
    // gets its first render here: hydrating an empty root would be a mismatch. In one task, effects included: keys pressed
    // meanwhile wait, then reach a box that shows the carried text and is subscribed to the machine (rendered as a
    // transition, the card would subscribe a task after it is in the page, and a key in between would be lost).
    const typing = served && document.activeElement === served.box;
    const app = createRoot(root);
    flushSync(() => {
      app.render(
        <StrictMode>
          <App
            logic={logic}
            inspect={inspect}
            card={card}
            served={served}
            settings={settings}
            keeping={keeping}
            hostPage={hostPage}
          />
        </StrictMode>,
      );
    });
    // Replacing the served card dropped the focus of the box the visitor was typing in: the app's box takes it.
    if (typing) root.querySelector<HTMLInputElement>('input[name="message"]')?.focus();
  } else {
    // The card is in the page already (build/prerender-card.ts): React takes it over as a transition, which it renders
    // in slices, yielding to the browser between them, and the visitor sees no change.
    startTransition(() => {
      hydrateRoot(
        root,
        <StrictMode>
          <App logic={logic} inspect={inspect} served={served} settings={settings} />
        </StrictMode>,
      );
    });
  }
});

// Fetch the openai client and the Markdown renderer once the page is idle, so the first message waits for neither.
const prefetch = () => {
  loadRequestReply().catch(() => undefined);
  void loadMarkdown();
};
if ('requestIdleCallback' in window) {
  window.requestIdleCallback(prefetch, { timeout: 3000 });
} else {
  setTimeout(prefetch, 1000);
}
