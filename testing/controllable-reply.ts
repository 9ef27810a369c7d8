import { fromPromise } from 'xstate';
import type { ReplyActions } from '../contract/actions';
import type { ReplySource } from '../contract/llm';
import type { FetchReplyInput, FetchReplyOutput, ReplyToken } from '../machines/chat-machine';

/** One call of the fake reply actor, settled by the test. */
export interface ReplyCall {
  input: FetchReplyInput;
  signal: AbortSignal;
  /** Hands the machine a streamed piece of the reply, as the real actor does. */
  delta: (text: string) => void;
  /** Hands the machine the reply's sources (and token, in proxy mode), as the real actor does before the reply. */
  sources: (sources: ReplySource[], token?: ReplyToken) => void;
  /** Hands the machine what the server said of the reply's actions (notes, a write to confirm), as the real actor does. */
  actions: (actions: ReplyActions) => void;
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
          sources: (sources, token) =>
            input.parent.send({ type: 'reply.sources', sources, ...(token ? { token } : {}) }),
          actions: (actions) => input.parent.send({ type: 'reply.sources', actions }),
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

/**
 * The machine's input for the real `requestReply` in a test with no machine: the pieces and the sources it would send
 * the machine go to `onDelta` and `onSources`.
 */
export function replyInput(
  text: string,
  {
    onDelta = () => undefined,
    onSources = () => undefined,
    onActions = () => undefined,
    history,
    ...rest
  }: {
    onDelta?: (text: string) => void;
    onSources?: (sources: ReplySource[], token?: ReplyToken) => void;
    onActions?: (actions: ReplyActions) => void;
    history?: FetchReplyInput['history'];
  } & Pick<FetchReplyInput, 'confirm' | 'language' | 'hostPage'> = {},
): FetchReplyInput {
  return {
    text,
    ...(history ? { history } : {}),
    ...rest,
    parent: {
      send: (event) => {
        if (event.type === 'reply.delta') onDelta(event.text);
        else if (event.actions) onActions(event.actions);
        else onSources(event.sources ?? [], event.token);
      },
    },
  };
}
