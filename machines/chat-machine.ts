import { assign, fromPromise, setup } from 'xstate';

/** Who wrote a message. */
export type Sender = 'user' | 'bot';

/** One entry of the conversation, exactly the spec's entity. */
export interface ChatMessage {
  text: string;
  sender: Sender;
}

/** The bot message shown when the provider answers without content. */
export const NO_CONTENT_MESSAGE = 'No response received';
/** The bot message shown when the call fails for any reason. */
export const ERROR_MESSAGE = 'Error: Unable to get response';

/** What the reply actor is given: the visitor's latest message, exactly as typed. */
export interface FetchReplyInput {
  text: string;
}

/**
 * What the reply actor resolves with: the first choice's message content, or `null` when the reply has none.
 * A failed call rejects instead.
 */
export type FetchReplyOutput = string | null;

export interface ChatContext {
  messages: ChatMessage[];
  draft: string;
}

export type ChatEvent = { type: 'draft.change'; text: string } | { type: 'message.submit' };

/**
 * The chat: `idle` accepts a draft and a submit; `sending` waits for the reply actor.
 *
 * `fetchReply` is declared here only by its types. The app provides the real one (the openai client) and tests
 * provide fakes, both with `chatMachine.provide({ actors: { fetchReply } })`. It receives an abort signal that
 * fires if the machine stops while the request is pending.
 */
export const chatMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatEvent,
  },
  actors: {
    fetchReply: fromPromise<FetchReplyOutput, FetchReplyInput>(() =>
      Promise.reject(new Error('fetchReply is not provided: give it with chatMachine.provide()')),
    ),
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
    appendReply: assign({
      messages: ({ context }, reply: FetchReplyOutput) => [
        ...context.messages,
        // A reply of only white space would be an empty bubble: to the visitor that is no content either.
        { text: reply?.trim() ? reply : NO_CONTENT_MESSAGE, sender: 'bot' },
      ],
    }),
    appendError: assign({
      messages: ({ context }) => [...context.messages, { text: ERROR_MESSAGE, sender: 'bot' }],
    }),
    logError: (_, error: unknown) => {
      console.error('Chat request failed:', error);
    },
  },
}).createMachine({
  id: 'chat',
  context: { messages: [], draft: '' },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'draft.change': { actions: 'updateDraft' },
        'message.submit': {
          guard: 'hasText',
          target: 'sending',
          actions: ['appendUserMessage', 'clearDraft'],
        },
      },
    },
    sending: {
      invoke: {
        src: 'fetchReply',
        input: ({ context }) => ({ text: context.messages[context.messages.length - 1].text }),
        onDone: {
          target: 'idle',
          actions: {
            type: 'appendReply',
            params: ({ event }: { event: { output: FetchReplyOutput } }) => event.output,
          },
        },
        onError: {
          target: 'idle',
          actions: [
            { type: 'logError', params: ({ event }: { event: { error: unknown } }) => event.error },
            'appendError',
          ],
        },
      },
    },
  },
});
