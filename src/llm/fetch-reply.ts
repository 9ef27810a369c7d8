import { fromPromise } from 'xstate';
import { DEFAULT_SLOW_MS, DEFAULT_TIMEOUT_MS, type ReplySource } from '../../contract/llm';
import type { FetchReplyInput, FetchReplyOutput } from '../../machines/chat-machine';
import { lazyModule } from '../lazy-module';
import type { LlmConfig } from './llm-config';

// The request code and the openai client as one chunk, off the first paint. The app loads it when the page is idle,
// so the first message does not wait for the download.
const requestModule = lazyModule(() => import('./request-reply'));

/** Loads the request code and the openai client (once). */
export const loadRequestReply = requestModule.load;

/**
 * The machine's `fetchReply` actor, bound to a configuration (by default the page's own, `VITE_LLM_*`, read in the
 * request's chunk where it is used): `chatMachine.provide({ actors: { fetchReply } })`. A streamed reply's pieces go to
 * the invoking machine as `reply.delta` events. The machine's deadline covers the chunk download too: a download that
 * stalls on a poor connection ends in its timeout like a silent provider.
 */
export function createFetchReply(config?: LlmConfig) {
  return fromPromise<FetchReplyOutput, FetchReplyInput>(async ({ input, signal }) => {
    // Once the chunk is in, the request starts in the same task as the submit: awaiting `import()` again would put a
    // turn of the event loop (after React's render of the visitor's message) between Enter and the request.
    const { requestReply, pageLlmConfig } = requestModule.current() ?? (await requestModule.load());
    const onDelta = (text: string) => input.parent.send({ type: 'reply.delta', text });
    const onSources = (sources: ReplySource[]) => input.parent.send({ type: 'reply.sources', sources });
    return requestReply(input.text, signal, config ?? pageLlmConfig(), onDelta, input.history, onSources);
  });
}

// Timers take whole milliseconds up to 2^31 - 1: past that a browser's setTimeout fires at once, and a fraction or an
// overflow makes AbortSignal.timeout throw (Node) or time out at once, so every request would fail.
const MAX_TIMER_MS = 2_147_483_647;

function timerMs(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 && parsed <= MAX_TIMER_MS ? parsed : fallback;
}

/**
 * The reply's deadline and slow hint from the build-time `VITE_LLM_TIMEOUT_MS` and `VITE_LLM_SLOW_MS`: all that
 * start-up needs of the configuration (the rest, llm-config.ts, is read with the request's chunk).
 */
export function readReplyTimers(env: ImportMetaEnv): Pick<LlmConfig, 'timeoutMs' | 'slowMs'> {
  return {
    timeoutMs: timerMs(env.VITE_LLM_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    slowMs: timerMs(env.VITE_LLM_SLOW_MS, DEFAULT_SLOW_MS),
  };
}

/** The machine's delays from the configuration: `chatMachine.provide({ delays: replyDelays(config) })`. */
export function replyDelays(config: Pick<LlmConfig, 'timeoutMs' | 'slowMs'>) {
  return { slowHint: config.slowMs, replyTimeout: config.timeoutMs };
}

/** The host page the visitor is reading, as the embed loader names it: never its query or fragment. */
export interface HostPageContext {
  origin: string;
  path: string;
  title: string;
}

/**
 * With the site's `page_context`, the embed's host page, once the loader has named it (src/embed/host-page.ts): each
 * request then carries it as `page_context`, for the server to check and quote to the model. Unset everywhere else.
 * Here, in the app's chunk that the embed's chunk and the request's share, rather than in a chunk of its own.
 */
export const hostPageContext: { current?: HostPageContext } = {};
