import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { chatMachine } from '../machines/chat-machine';
import { App } from './app';
import { inspectIfAsked } from './inspector';
import { createFetchReply, loadRequestReply, replyDelays } from './llm/fetch-reply';
import { readLlmConfig } from './llm/llm-config';

const config = readLlmConfig(import.meta.env, window.location.origin);
const logic = chatMachine.provide({ actors: { fetchReply: createFetchReply(config) }, delays: replyDelays(config) });

const root = document.getElementById('root');
if (!root) {
  throw new Error('index.html has no #root element');
}
const inspect = await inspectIfAsked();
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

// Fetch the openai client once the page is idle, so the first message does not wait for the download.
const prefetch = () => void loadRequestReply().catch(() => undefined);
if ('requestIdleCallback' in window) {
  window.requestIdleCallback(prefetch, { timeout: 3000 });
} else {
  setTimeout(prefetch, 1000);
}
