/**
 * The page's entry: start-up in three module evaluations, each a task of its own, so that none is long on a slow
 * phone and the browser can paint and take input between them: React DOM, then Chakra and Emotion (with the card's
 * system, src/system.ts), then the app (src/main.tsx). Their chunks (vite.config.ts, `codeSplitting`) download in
 * parallel from the first, through the `modulepreload` links build/start-up-preload.ts writes into the page: the split
 * costs no extra round trip. Imported statically from one module, they would evaluate in one task.
 */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

void import('react-dom/client')
  .then(nextTask)
  .then(() => import('./system'))
  .then(nextTask)
  .then(() => import('./main'));
