import { fromPromise } from 'xstate';
import type { FetchReplyInput, FetchReplyOutput } from '../machines/chat-machine';

/** One call of the fake reply actor, settled by the test. */
export interface ReplyCall {
  input: FetchReplyInput;
  signal: AbortSignal;
  resolve: (output: FetchReplyOutput) => void;
  reject: (error: unknown) => void;
}

/**
 * A `fetchReply` for `chatMachine.provide()` whose every call waits until the test resolves or rejects it,
 * recording its input and abort signal.
 */
export function createControllableFetchReply() {
  const calls: ReplyCall[] = [];
  const logic = fromPromise<FetchReplyOutput, FetchReplyInput>(
    ({ input, signal }) =>
      new Promise<FetchReplyOutput>((resolve, reject) => {
        calls.push({ input, signal, resolve, reject });
      }),
  );
  const latest = () => {
    const call = calls.at(-1);
    if (!call) throw new Error('fetchReply was never called');
    return call;
  };
  return { logic, calls, latest };
}
