import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { chatMachine } from '../machines/chat-machine';
import { App } from './app';
import { inspectIfAsked } from './inspector';
import { createFetchReply, loadRequestReply, replyDelays } from './llm/fetch-reply';
import { readLlmConfig } from './llm/llm-config';
import { loadMarkdown } from './markdown/load-markdown';

const config = readLlmConfig(import.meta.env, window.location.origin);
const logic = chatMachine.provide({ actors: { fetchReply: createFetchReply(config) }, delays: replyDelays(config) });

const root = document.getElementById('root');
if (!root) {
  throw new Error('index.html has no #root element');
}
// Not a top-level await: with one, the bundler keeps the modules that the lazy chunks share with the entry in a chunk
// of their own (to keep the execution order), which costs the first paint another request and its bytes.
void inspectIfAsked().then((inspect) => {
  // As a transition, the first render yields to the browser every few milliseconds instead of holding the main thread
  // for the whole tree (Chakra resolves every style prop as it renders): the static shell stays on screen meanwhile,
  // and a slow phone stays responsive (Lighthouse's total blocking time).
  startTransition(() => {
    createRoot(root).render(
      <StrictMode>
        <App logic={logic} inspect={inspect} />
      </StrictMode>,
    );
  });
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
