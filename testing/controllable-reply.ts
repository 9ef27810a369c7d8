import { fromPromise } from 'xstate';
import type { ReplySource } from '../contract/llm';
import type { FetchReplyInput, FetchReplyOutput } from '../machines/chat-machine';

/** One call of the fake reply actor, settled by the test. */
export interface ReplyCall {
  input: FetchReplyInput;
  signal: AbortSignal;
  /** Hands the machine a streamed piece of the reply, as the real actor does. */
  delta: (text: string) => void;
  /** Hands the machine the reply's sources, as the real actor does before the reply. */
  sources: (sources: ReplySource[]) => void;
  /** Hands the machine the reply's token, as the real actor does in proxy mode before the reply. */
  token: (token: string, uncovered?: true) => void;
  resolve: (output: FetchReplyOutput) => void;
  reject: (error: unknown) => void;
}

/**
 * A `fetchReply` for `chatMachine.provide()` whose every call waits until the test streams pieces to it, resolves or
 * rejects it, recording its input and abort signal.
 */
export function createControllableFetchReply() {
  const calls: ReplyCall[] = [];
  const logic = fromPromise<FetchReplyOutput, FetchReplyInput>(
    ({ input, signal }) =>
      new Promise<FetchReplyOutput>((resolve, reject) => {
        calls.push({
          input,
          signal,
          delta: (text) => input.parent.send({ type: 'reply.delta', text }),
          sources: (sources) => input.parent.send({ type: 'reply.sources', sources }),
          token: (token, uncovered) =>
            input.parent.send({ type: 'reply.token', token, ...(uncovered ? { uncovered } : {}) }),
          resolve,
          reject,
        });
      }),
  );
  const latest = () => {
    const call = calls.at(-1);
    if (!call) throw new Error('fetchReply was never called');
    return call;
  };
  return { logic, calls, latest };
}
