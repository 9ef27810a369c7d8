// The worker thread that turns fetched HTML into a page draft (see html-extractor.ts): parsing and Readability take
// whole seconds on a hostile page, and here they take none of the thread that serves chat.
import { parentPort, workerData } from 'node:worker_threads';
import { htmlPage } from './html-page.ts';
import type { PageDraft } from './page.ts';

/** One page to read; the answer carries the same `id`. */
export interface ExtractJob {
  id: number;
  html: string;
  address: string;
}

export type ExtractAnswer = { id: number; draft: PageDraft } | { id: number; refused: string } | { ready: true };

/** How many elements `html` opens, counted in one pass: a page's size in nodes, known before any parsing. */
export function countElements(html: string): number {
  let count = 0;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at + 1)) {
    const next = html.charCodeAt(at + 1) | 0x20;
    if (next >= 0x61 && next <= 0x7a) count++;
  }
  return count;
}

const port = parentPort;
if (port) {
  const { maxNodes } = workerData as { maxNodes: number };
  port.on('message', ({ id, html, address }: ExtractJob) => {
    const nodes = countElements(html);
    let answer: ExtractAnswer;
    if (nodes > maxNodes) answer = { id, refused: `it has ${nodes} elements, more than ${maxNodes}` };
    else {
      try {
        answer = { id, draft: htmlPage(html, address) };
      } catch (error) {
        answer = { id, refused: `it cannot be read as HTML (${(error as Error).message})` };
      }
    }
    port.postMessage(answer);
  });
  port.postMessage({ ready: true } satisfies ExtractAnswer);
}
