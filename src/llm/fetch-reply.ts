import { fromPromise } from 'xstate';
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
    return requestReply(input, signal, config ?? pageLlmConfig());
  });
}

/** The machine's delays from the configuration: `chatMachine.provide({ delays: replyDelays(config) })`. */
export function replyDelays(config: Pick<LlmConfig, 'timeoutMs' | 'slowMs'>) {
  return { slowHint: config.slowMs, replyTimeout: config.timeoutMs };
}
