// The worker thread that turns a fetched page's bytes into a page draft (see html-extractor.ts): decoding, the check
// for binary bytes, parsing and Readability take whole seconds on a hostile page, and here they take none of the thread
// that serves chat.
import { parentPort, workerData } from 'node:worker_threads';
import { tokenize } from '../library/tokenize.ts';
import { pageText } from '../sources/crawl-fetch.ts';
import { htmlPage } from '../sources/html-page.ts';
import type { PageDraft } from '../sources/page.ts';
import { runBehindChat } from './behind-chat.ts';
import { ownThreadId } from './thread-cpu.ts';

/** One page to read; the answer carries the same `id`. */
export interface ExtractJob {
  id: number;
  /** The body as it came, and the `Content-Type` that names its charset. */
  bytes: Uint8Array;
  contentType: string;
  address: string;
  /** The page's language when it does not say (its source's). */
  language: string;
}

/** Once ready, the worker says which thread it is (on Linux), so that its CPU time can be read from outside. */
export type ExtractAnswer =
  | { id: number; draft: PageDraft }
  | { id: number; refused: string }
  | { ready: true; thread?: number };

/** How many elements `html` opens, counted in one pass: a page's size in nodes, known before any parsing. */
export function countElements(html: string): number {
  let count = 0;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at + 1)) {
    const next = html.charCodeAt(at + 1) | 0x20;
    if (next >= 0x61 && next <= 0x7a) count++;
  }
  return count;
}

/**
 * Whether the page's text brings more than `max` distinct index terms: a page of words that no other page has is
 * refused here, before its text reaches the store, the chunker and the index on the thread that serves chat.
 */
export function overTerms(draft: PageDraft, language: string, max: number): boolean {
  const terms = new Set<string>();
  const texts = [draft.title ?? '', ...draft.sections.flatMap((section) => [...section.headings, section.text])];
  for (const text of texts) {
    for (const term of tokenize(text, draft.language ?? language)) {
      terms.add(term);
      if (terms.size > max) return true;
    }
  }
  return false;
}

/** The page read from its bytes, or why it is refused. */
function extract({ bytes, contentType, address, language }: ExtractJob, maxNodes: number, maxTerms: number) {
  const html = pageText(bytes, contentType);
  if (html === undefined) return { refused: 'it is not text in its charset (or holds control characters)' };
  const nodes = countElements(html);
  if (nodes > maxNodes) return { refused: `it has ${nodes} elements, more than ${maxNodes}` };
  let draft: PageDraft;
  try {
    draft = htmlPage(html, address);
  } catch (error) {
    return { refused: `it cannot be read as HTML (${(error as Error).message})` };
  }
  return overTerms(draft, language, maxTerms) ? { refused: `it has more than ${maxTerms} distinct terms` } : { draft };
}

const port = parentPort;
if (port) {
  runBehindChat();
  const { maxNodes, maxTerms } = workerData as { maxNodes: number; maxTerms: number };
  port.on('message', (job: ExtractJob) => {
    port.postMessage({ id: job.id, ...extract(job, maxNodes, maxTerms) } satisfies ExtractAnswer);
  });
  port.postMessage({ ready: true, thread: ownThreadId() } satisfies ExtractAnswer);
}
