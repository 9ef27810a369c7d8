import { assign, emit, fromPromise, setup } from 'xstate';
import { DEFAULT_SLOW_MS, DEFAULT_TIMEOUT_MS } from '../contract/llm';

/** Who wrote a message. */
export type Sender = 'user' | 'bot';

/** One entry of the conversation: the spec's entity, and whether the visitor stopped this reply while it came in. */
export interface ChatMessage {
  text: string;
  sender: Sender;
  /** A bot reply the visitor stopped: `text` is what had arrived by then (maybe nothing). */
  stopped?: true;
}

/** The bot message shown when the provider answers without content. */
export const NO_CONTENT_MESSAGE = 'No response received';
/** The bot message shown when the call fails for any reason. */
export const ERROR_MESSAGE = 'Error: Unable to get response';

/** The bot messages the machine writes itself, in the visitor's language: the spec's English ones by default. */
export interface StatusTexts {
  noContent: string;
  error: string;
}

/**
 * What the machine may be started with (`createActor(chatMachine, { input })`). Not declared in `setup`'s types, where
 * XState would then require it of every actor: with none, the machine speaks the spec's English.
 */
export interface ChatInput {
  statusTexts?: StatusTexts;
}

/** A piece of the reply, sent by the reply actor to the machine that invoked it while the reply streams in. */
export interface ReplyDeltaEvent {
  type: 'reply.delta';
  /** The new text, to append to what came before (never empty). */
  text: string;
}

/** What the reply actor is given: the visitor's latest message, exactly as typed, and where to send pieces. */
export interface FetchReplyInput {
  text: string;
  /** The invoking machine: a streaming actor sends it each piece as a `reply.delta` event. */
  parent: { send: (event: ReplyDeltaEvent) => void };
}

/**
 * What the reply actor resolves with: the whole reply (the first choice's message content, or every streamed piece
 * joined), or `null` when the reply has none. A failed call rejects instead.
 */
export type FetchReplyOutput = string | null;

export interface ChatContext {
  messages: ChatMessage[];
  draft: string;
  /** The reply streamed in so far for the pending request; empty when none has arrived. */
  reply: string;
  statusTexts: StatusTexts;
}

export type ChatEvent =
  | { type: 'draft.change'; text: string }
  | { type: 'message.submit' }
  | { type: 'reply.stop' }
  | { type: 'reply.retry' }
  | ReplyDeltaEvent;

/**
 * What the machine tells its observers (`actor.on(type, handler)`): `reply.ended` when a pending reply ends, whichever
 * way (an answer, a failure, a timeout or a stop), so that the UI can give the box back its focus.
 */
export type ChatEmitted = { type: 'reply.ended' };

/** Why a pending reply ended without one, as logged by `logError`. */
export class ReplyTimeoutError extends Error {
  constructor(phase: 'first piece' | 'next piece') {
    super(`No ${phase} of the reply within the time limit`);
    this.name = 'ReplyTimeoutError';
  }
}

/**
 * The chat. `idle` accepts a draft and a submit, and in `idle.retryable` (after a failed, timed-out or stopped reply)
 * a retry of the same message. `sending` is a request pending: `waiting` for the first piece (`quiet`, then `slow`
 * once `slowHint` has passed), then `streaming` while pieces arrive. Either can be stopped; `replyTimeout` bounds the
 * wait for the first piece and the gap between two pieces.
 *
 * `fetchReply` is declared here only by its types. The app provides the real one (the openai client) and tests
 * provide fakes, both with `chatMachine.provide({ actors: { fetchReply } })`; the app provides `delays` from its
 * configuration the same way. The actor receives an abort signal that fires when `sending` is left for any reason
 * other than its own answer (Stop, a timeout, the machine stopping), which ends the request.
 */
export const chatMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatEvent,
    emitted: {} as ChatEmitted,
  },
  actors: {
    fetchReply: fromPromise<FetchReplyOutput, FetchReplyInput>(() =>
      Promise.reject(new Error('fetchReply is not provided: give it with chatMachine.provide()')),
    ),
  },
  delays: {
    /** How long without a first piece before the visitor is told the model is still working. */
    slowHint: DEFAULT_SLOW_MS,
    /** How long the first piece (or the whole reply, when not streamed) and each later piece may take. */
    replyTimeout: DEFAULT_TIMEOUT_MS,
  },
  guards: {
    hasText: ({ context }) => context.draft.trim() !== '',
  },
  actions: {
    updateDraft: assign({
      draft: ({ event }) => (event.type === 'draft.change' ? event.text : ''),
    }),
    appendUserMessage: assign({
      messages: ({ context }) => [...context.messages, { text: context.draft, sender: 'user' }],
    }),
    clearDraft: assign({ draft: '' }),
    appendDelta: assign({
      reply: ({ context, event }) => context.reply + (event.type === 'reply.delta' ? event.text : ''),
    }),
    appendReply: assign({
      messages: ({ context }, reply: FetchReplyOutput) => [
        ...context.messages,
        // A reply of only white space would be an empty bubble: to the visitor that is no content either.
        { text: reply?.trim() ? reply : context.statusTexts.noContent, sender: 'bot' },
      ],
      reply: '',
    }),
    // What had streamed in stays, as its own message; the error follows it as another.
    appendError: assign({
      messages: ({ context }) => [
        ...context.messages,
        ...(context.reply ? [{ text: context.reply, sender: 'bot' as const }] : []),
        { text: context.statusTexts.error, sender: 'bot' },
      ],
      reply: '',
    }),
    appendStoppedReply: assign({
      messages: ({ context }) => [...context.messages, { text: context.reply, sender: 'bot', stopped: true }],
      reply: '',
    }),
    // The failed attempt's messages (everything after the visitor's last message) give way to the new reply.
    dropFailedAttempt: assign({
      messages: ({ context }) => context.messages.slice(0, context.messages.findLastIndex(isFromUser) + 1),
    }),
    announceReplyEnded: emit({ type: 'reply.ended' } as const),
    logError: (_, error: unknown) => {
      console.error('Chat request failed:', error);
    },
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => ({
    messages: [],
    draft: '',
    reply: '',
    statusTexts: (input as ChatInput | undefined)?.statusTexts ?? {
      noContent: NO_CONTENT_MESSAGE,
      error: ERROR_MESSAGE,
    },
  }),
  initial: 'idle',
  states: {
    idle: {
      initial: 'ready',
      on: {
        'draft.change': { actions: 'updateDraft' },
        'message.submit': {
          guard: 'hasText',
          target: 'sending',
          actions: ['appendUserMessage', 'clearDraft'],
        },
      },
      states: {
        ready: {},
        retryable: {
          description: 'The last reply failed, timed out or was stopped: it can be asked for again.',
          on: { 'reply.retry': { target: '#chat.sending', actions: 'dropFailedAttempt' } },
        },
      },
    },
    sending: {
      exit: 'announceReplyEnded',
      invoke: {
        src: 'fetchReply',
        input: ({ context, self }) => ({ text: context.messages.findLast(isFromUser)?.text ?? '', parent: self }),
        onDone: {
          target: 'idle.ready',
          actions: {
            type: 'appendReply',
            params: ({ event }: { event: { output: FetchReplyOutput } }) => event.output,
          },
        },
        onError: {
          target: 'idle.retryable',
          actions: [
            { type: 'logError', params: ({ event }: { event: { error: unknown } }) => event.error },
            'appendError',
          ],
        },
      },
      on: {
        'reply.stop': { target: 'idle.retryable', actions: 'appendStoppedReply' },
      },
      initial: 'waiting',
      states: {
        waiting: {
          initial: 'quiet',
          states: {
            quiet: { after: { slowHint: 'slow' } },
            slow: { description: 'Still no first piece: the visitor is told the model is working, and about Stop.' },
          },
          after: {
            replyTimeout: {
              target: '#chat.idle.retryable',
              actions: [{ type: 'logError', params: () => new ReplyTimeoutError('first piece') }, 'appendError'],
            },
          },
          on: { 'reply.delta': { target: 'streaming', actions: 'appendDelta' } },
        },
        streaming: {
          after: {
            replyTimeout: {
              target: '#chat.idle.retryable',
              actions: [{ type: 'logError', params: () => new ReplyTimeoutError('next piece') }, 'appendError'],
            },
          },
          // Re-entered on each piece, which restarts the stall timer.
          on: { 'reply.delta': { target: 'streaming', reenter: true, actions: 'appendDelta' } },
        },
      },
    },
  },
});

function isFromUser(message: ChatMessage): boolean {
  return message.sender === 'user';
}
