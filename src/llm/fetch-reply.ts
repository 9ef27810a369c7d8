import { fromPromise } from 'xstate';
import type { FetchReplyInput, FetchReplyOutput } from '../../machines/chat-machine';
import type { LlmConfig } from './llm-config';

/**
 * Loads the request code and the openai client (about 85 KB of gzip) as one chunk, off the first paint. The app
 * calls it when the page is idle, so the first message does not wait for the download.
 */
export const loadRequestReply = () =>
  import('./request-reply').then((module) => {
    loaded = module;
    return module;
  });

// Once the chunk is in, the request starts in the same task as the submit: awaiting `import()` again would put a
// turn of the event loop (after React's render of the visitor's message) between Enter and the request.
let loaded: typeof import('./request-reply') | undefined;

/**
 * The machine's `fetchReply` actor, bound to a configuration: `chatMachine.provide({ actors: { fetchReply } })`.
 * A streamed reply's pieces go to the invoking machine as `reply.delta` events. The machine's deadline covers the
 * chunk download too: a download that stalls on a poor connection ends in its timeout like a silent provider.
 */
export function createFetchReply(config: LlmConfig) {
  return fromPromise<FetchReplyOutput, FetchReplyInput>(async ({ input, signal }) => {
    const { requestReply } = loaded ?? (await loadRequestReply());
    return requestReply(input.text, signal, config, (text) => input.parent.send({ type: 'reply.delta', text }));
  });
}

/** The machine's delays from the configuration: `chatMachine.provide({ delays: replyDelays(config) })`. */
export function replyDelays(config: LlmConfig) {
  return { slowHint: config.slowMs, replyTimeout: config.timeoutMs };
}
