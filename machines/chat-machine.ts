import { assign, emit, fromPromise, setup } from 'xstate';
import type { ActionConfirmation, ActionNote, ReplyActions } from '../contract/actions';
import type { FeedbackRating, FeedbackReason } from '../contract/feedback';
import {
  DEFAULT_SLOW_MS,
  DEFAULT_TIMEOUT_MS,
  type HostPageContext,
  type LIMIT_ERROR_CODES,
  type ReplySource,
} from '../contract/llm';

/** Who wrote a message. */
export type Sender = 'user' | 'bot';

/**
 * What a bot message can be, set by the machine when it writes it: the model's reply (`answer`), the machine's own
 * text for a reply without content (`empty`) or for a failed one (`failed`), or a reply the visitor stopped while it
 * came in (`stopped`: `text` is what had arrived by then, maybe nothing). Everything that needs a message's kind reads
 * this, never the text, which is in the visitor's language.
 */
export type ReplyStatus = 'answer' | 'empty' | 'failed' | 'stopped';

/** One entry of the conversation: the spec's entity, and what a bot message is. */
export interface ChatMessage {
  text: string;
  sender: Sender;
  /** Set on every bot message (a visitor's message has none). */
  status?: ReplyStatus;
  /** A bot reply's pages of the site, as given to the model: its `[n]` cite them, and the page lists them under it. */
  sources?: ReplySource[];
  /** A reply the page's own server gave (proxy mode): the token a vote on it names, and the visitor's vote. */
  feedback?: ReplyFeedback;
  /** The site's actions the server called for this reply (proxy mode): one line each, as the server wrote it. */
  actions?: ActionNote[];
  /** A write the model proposed with this reply, for the visitor to confirm, and what the visitor did with it. */
  confirmation?: ShownConfirmation;
}

/** A proposed write as the conversation shows it: pending while `outcome` is unset (the chat is then `confirming`). */
export interface ShownConfirmation extends ActionConfirmation {
  outcome?: 'confirmed' | 'cancelled';
}

/**
 * What the server said of a reply it gave: the token a vote names (its random id, day and pages' digests, signed),
 * and whether the site's pages covered the question (`uncovered`: the site has pages and none was given).
 */
export interface ReplyToken {
  token: string;
  uncovered?: true;
}

/** A reply's token and the visitor's vote on it: one vote per reply, which a later one replaces. */
export interface ReplyFeedback extends ReplyToken {
  rating?: FeedbackRating;
  /** Why it did not help (only with `down`), when the visitor says. */
  reason?: FeedbackReason;
  /** What the server said of the current vote: counted, or refused (the visitor is told either); unset while it is sent. */
  outcome?: VoteOutcome;
}

/** Whether the server counted a vote. */
export type VoteOutcome = 'counted' | 'refused';

/** The bot message shown when the provider answers without content. */
export const NO_CONTENT_MESSAGE = 'No response received';
/** The bot message shown when the call fails for any reason. */
export const ERROR_MESSAGE = 'Error: Unable to get response';

/** The bot messages the machine writes itself, in the visitor's language: the spec's English ones by default. */
export interface StatusTexts {
  noContent: string;
  error: string;
  /**
   * A confirmation the server no longer takes (too old): said instead of `error`, and Retry asks again. Only a page's
   * own server proposes actions, and the app always gives these two from the catalogue; without them, `error`.
   */
  actionExpired?: string;
  /** The owner's API failed when the visitor confirmed: said instead of `error`. */
  actionFailed?: string;
}

/** A piece of the reply, sent by the reply actor to the machine that invoked it while the reply streams in. */
export interface ReplyDeltaEvent {
  type: 'reply.delta';
  /** The new text, to append to what came before (never empty). */
  text: string;
}

/**
 * What the server said of the pending reply before the reply itself, sent by the reply actor (proxy mode only: a
 * direct provider gives none of it): the site's pages given to the model (maybe none) and the reply's token, or, in
 * an event of its own, the reply's actions (the notes of those called, and a write to confirm).
 */
export interface ReplySourcesEvent {
  type: 'reply.sources';
  sources?: ReplySource[];
  token?: ReplyToken;
  actions?: ReplyActions;
}

/** A vote on a reply, named by its token: Helpful (`up`) or Not helpful (`down`, with a reason or none). */
export interface ReplyVote {
  token: string;
  rating: FeedbackRating;
  reason?: FeedbackReason;
}

/** An earlier message and the reply the visitor saw to it, sent as history with a later message. */
export interface Exchange {
  question: string;
  answer: string;
}

/**
 * What the reply actor is given: the visitor's latest message, exactly as typed, the earlier exchanges that go with it
 * (only when the site configures `history`), and where to send pieces.
 */
export interface FetchReplyInput {
  text: string;
  /** Oldest first; never a failed, empty or stopped reply. Absent with no `history`: the spec's latest message alone. */
  history?: Exchange[];
  /** The conversation's first message (for the owner's count of conversations; never its text). */
  first?: true;
  /** The visitor's Confirm: the token of the proposed write, which the request then performs and replies about. */
  confirm?: string;
  /** The card's language (the server asks for search words in the pages' language when it differs). */
  language?: string;
  /** In the embed's frame: the host page's path and title, and the visitor's token, as the loader has told them. */
  hostPage?: HostPageContext;
  /**
   * The invoking machine: a streaming actor sends it each piece as a `reply.delta` event; any actor sends the reply's
   * sources and token, when the server gives some, as a `reply.sources` event before the reply.
   */
  parent: { send: (event: ReplyDeltaEvent | ReplySourcesEvent) => void };
}

/**
 * What the reply actor resolves with: the whole reply (the first choice's message content, or every streamed piece
 * joined), or `null` when the reply has none. A failed call rejects instead.
 */
export type FetchReplyOutput = string | null;

/**
 * What the machine may be started with (`createActor(chatMachine, { input })`): the site's settings
 * (assistant.config.yaml) and the visitor's language. Not declared in `setup`'s types, where XState would then require
 * it of every actor: with none, the chat is exactly the spec's, in its English.
 */
export interface ChatInput {
  /** The machine's own texts in the visitor's language; the spec's English ones by default. */
  statusTexts?: StatusTexts;
  /** Shown as the first bot message; never a message of the conversation, so never sent to the model. */
  welcome?: string;
  /** Questions offered until the visitor's first message. */
  starters?: readonly string[];
  /** How many earlier exchanges go with the latest message. */
  history?: number;
  /** The site's own words for a visitor refused by a limit, instead of the language's. */
  limitMessage?: string;
  /**
   * The conversation kept from the tab's previous page (the site's `persist: tab`), oldest first: it goes on as if the
   * page had never changed. A reply cut off by the page change comes as a stopped one, which Retry asks for again.
   */
  restored?: readonly ChatMessage[];
  /** The card's language, as the server chose it for the visitor (the page's `lang`). */
  language?: string;
  /** In the embed's frame: what the host page has told the app, read by each request. */
  hostPage?: HostPageContext;
}

export interface ChatContext extends ChatInput {
  messages: ChatMessage[];
  draft: string;
  /** The reply streamed in so far for the pending request; empty when none has arrived. */
  reply: string;
  /** The pending reply's sources, when the server gave some. */
  sources?: ReplySource[];
  /** The pending reply's token, when the server gave one. */
  token?: ReplyToken;
  statusTexts: StatusTexts;
  /** While `idle.limited`: which limit refused the last request, and for how long. */
  limit?: ReplyLimit;
  /** The pending reply's actions, when the server called or proposed some. */
  actions?: ReplyActions;
}

export type ChatEvent =
  | { type: 'draft.change'; text: string }
  /** Sends the box's contents or, with `text`, that text (a starter), leaving the box as it is. */
  | { type: 'message.submit'; text?: string }
  | { type: 'reply.stop' }
  | { type: 'reply.retry' }
  /** "New conversation": the messages go (a pending reply is stopped), and the chat starts afresh. */
  | { type: 'conversation.clear' }
  /** Helpful or Not helpful (with a reason or none) on the reply with this token; a later vote replaces it. */
  | ({ type: 'reply.vote' } & ReplyVote)
  /** The server's answer to a vote (sent by the app, which sends the vote): said beside the reply if still its vote. */
  | ({ type: 'reply.voteSettled'; outcome: VoteOutcome } & ReplyVote)
  /** The visitor confirms the proposed write (`confirming`): the server performs it and replies. */
  | { type: 'action.confirm' }
  /** The visitor cancels the proposed write: nothing is done. */
  | { type: 'action.cancel' }
  | ReplyDeltaEvent
  | ReplySourcesEvent;

/**
 * What the machine tells its observers (`actor.on(type, handler)`): `reply.ended` when a pending reply ends, whichever
 * way (an answer, a failure, a timeout or a stop), so that the UI can give the box back its focus; `reply.voted` when
 * the visitor votes or changes a vote, for the app to tell the server (and the embed's host page).
 */
export type ChatEmitted = { type: 'reply.ended' } | ({ type: 'reply.voted' } & ReplyVote);

/** Which of the server's limits refused a request: the per-client rate, or the site's daily allowance. */
export type LimitReason = keyof typeof LIMIT_ERROR_CODES;

/** The wait a limit asks for, and why: plain data, as the inspector shows it. */
export interface ReplyLimit {
  reason: LimitReason;
  /** From the refusal's `Retry-After`. */
  retryAfterSeconds: number;
}

/**
 * What the reply actor rejects with when the server refused the request for one of its limits (HTTP 429 with its
 * own code): the machine then waits `retryAfterSeconds` before it offers Retry, and the page says why.
 */
export class ReplyLimitedError extends Error {
  readonly limit: ReplyLimit;
  constructor(reason: LimitReason, retryAfterSeconds: number) {
    super(`Refused by the ${reason === 'rate' ? 'rate limit' : 'daily limit'}: try again in ${retryAfterSeconds} s`);
    this.name = 'ReplyLimitedError';
    this.limit = { reason, retryAfterSeconds };
  }
}

/**
 * What the reply actor rejects with (an `Error` with this field) when the server refused the visitor's Confirm: the
 * confirmation is too old (`expired`: Retry asks the model again), or the owner's API failed (`failed`). A field
 * rather than a class of the machine's: only the request's chunk makes one.
 */
export interface ConfirmRefusal {
  confirmRefused: 'expired' | 'failed';
}

/** The longest wait the machine honours: a day, the daily limit's longest (and far below a timer's limit). */
const MAX_LIMIT_WAIT_SECONDS = 86_400;

/** Why a pending reply ended without one, as logged by `logError`. */
export class ReplyTimeoutError extends Error {
  constructor(phase: 'first piece' | 'next piece') {
    super(`No ${phase} of the reply within the time limit`);
    this.name = 'ReplyTimeoutError';
  }
}

/** No reply in progress: what every way out of `sending` leaves, its sources with it (a next reply may bring none). */
const NO_REPLY = { reply: '', sources: undefined, token: undefined, actions: undefined };

/**
 * The chat. `idle` accepts a draft and a submit, and in `idle.retryable` (after a failed, timed-out or stopped reply)
 * a retry of the same message; after a refusal by one of the server's limits, `idle.limited` first waits out
 * `limitWait` (the refusal's `Retry-After`). `sending` is a request pending: `waiting` for the first piece (`quiet`, then `slow`
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
    /** How long a refusal by a limit holds Retry back: the wait the server asked for. */
    limitWait: ({ context }) => Math.min(context.limit?.retryAfterSeconds ?? 0, MAX_LIMIT_WAIT_SECONDS) * 1000,
  },
  guards: {
    hasText: ({ context, event }) => submitted(context, event).trim() !== '',
    hasNoStarters: ({ context }) => !context.starters?.length,
    hasConversation: ({ context }) => context.messages.length > 0,
    lastReplyCut: ({ context }) => {
      const last = context.messages.at(-1);
      return last?.status === 'stopped' || last?.status === 'failed';
    },
    isLimited: (_, error: unknown) => error instanceof ReplyLimitedError,
    // The reply came with a write to confirm: the chat waits for the visitor.
    proposesAction: ({ context }) => !!context.actions?.confirmation,
    // A vote counts only for a reply the server gave a token with, and only when it changes something.
    changesVote: ({ context, event }) => {
      if (event.type !== 'reply.vote') return false;
      const feedback = context.messages.find((message) => message.feedback?.token === event.token)?.feedback;
      if (!feedback) return false;
      return event.rating !== feedback.rating || event.reason !== feedback.reason;
    },
  },
  actions: {
    updateDraft: assign({
      draft: ({ event }) => (event.type === 'draft.change' ? event.text : ''),
    }),
    appendUserMessage: assign({
      messages: ({ context, event }) => [...context.messages, { text: submitted(context, event), sender: 'user' }],
    }),
    clearDraft: assign({
      draft: ({ context, event }) => (event.type === 'message.submit' && event.text !== undefined ? context.draft : ''),
    }),
    appendDelta: assign({
      reply: ({ context, event }) => context.reply + (event.type === 'reply.delta' ? event.text : ''),
    }),
    // Whatever the event says: its sources and token, or its actions.
    rememberSources: assign(({ event }): Partial<ChatContext> => {
      if (event.type !== 'reply.sources') return {};
      const { type: _type, ...told } = event;
      return told;
    }),
    // The pending confirmation (the last message's) with what the visitor did with it.
    settleConfirmation: assign({
      messages: ({ context }, outcome: NonNullable<ShownConfirmation['outcome']>) => {
        const last = context.messages.at(-1);
        if (!last?.confirmation || last.confirmation.outcome) return context.messages;
        return [...context.messages.slice(0, -1), { ...last, confirmation: { ...last.confirmation, outcome } }];
      },
    }),
    // A vote, or the server's answer to one, on the reply whose token it names.
    recordVote: assign({
      messages: ({ context, event }) =>
        event.type === 'reply.vote'
          ? withFeedback(context.messages, event.token, (feedback) => votedOn(feedback, event))
          : event.type === 'reply.voteSettled'
            ? // An answer to a vote since replaced says nothing: the newer one's answer is on its way.
              withFeedback(context.messages, event.token, (feedback) =>
                event.rating === feedback.rating && event.reason === feedback.reason
                  ? { ...feedback, outcome: event.outcome }
                  : feedback,
              )
            : context.messages,
    }),
    announceVote: emit(({ event }) => ({ ...(event as ReplyVote), type: 'reply.voted' as const })),
    appendReply: assign({
      messages: ({ context }, reply: FetchReplyOutput) => [
        ...context.messages,
        // A reply of only white space would be an empty bubble: to the visitor that is no content either.
        reply?.trim()
          ? {
              text: reply,
              sender: 'bot',
              status: 'answer',
              ...sourcesOf(context),
              ...feedbackOf(context),
              ...actionsOf(context),
            }
          : { text: context.statusTexts.noContent, sender: 'bot', status: 'empty', ...actionsOf(context) },
      ],
      ...NO_REPLY,
    }),
    // What had streamed in stays, as its own message (the model's words, with the sources they may cite); the error
    // follows it as another, so that the exchange is not one answer and never goes to the model as history.
    appendError: assign({
      messages: ({ context }, error?: unknown) => [
        ...context.messages,
        ...(context.reply
          ? [{ text: context.reply, sender: 'bot' as const, status: 'answer' as const, ...sourcesOf(context) }]
          : []),
        { text: failureText(context.statusTexts, error), sender: 'bot', status: 'failed' },
      ],
      ...NO_REPLY,
    }),
    appendStoppedReply: assign({
      messages: ({ context }) => [...context.messages, stoppedReply(context)],
      ...NO_REPLY,
    }),
    // The failed attempt's messages (everything after the visitor's last message) give way to the new reply.
    dropFailedAttempt: assign({
      messages: ({ context }) => context.messages.slice(0, context.messages.findLastIndex(isFromUser) + 1),
    }),
    rememberLimit: assign({
      limit: (_, error: unknown) => (error instanceof ReplyLimitedError ? error.limit : undefined),
    }),
    forgetLimit: assign({ limit: undefined }),
    clearConversation: assign({ messages: [], ...NO_REPLY }),
    announceReplyEnded: emit({ type: 'reply.ended' } as const),
    logError: (_, error: unknown) => {
      console.error('Chat request failed:', error);
    },
  },
}).createMachine({
  id: 'chat',
  // The input (a `ChatInput`) is optional: a chat without settings is the spec's. Declaring its type in `setup` would
  // make every `createActor` pass one, since XState drops `undefined` from a declared input type.
  context: ({ input }) => {
    const settings = input as ChatInput | undefined;
    return {
      messages: [...(settings?.restored ?? [])],
      draft: '',
      reply: '',
      statusTexts: settings?.statusTexts ?? { noContent: NO_CONTENT_MESSAGE, error: ERROR_MESSAGE },
      welcome: settings?.welcome,
      starters: settings?.starters,
      history: settings?.history,
      limitMessage: settings?.limitMessage,
      language: settings?.language,
      hostPage: settings?.hostPage,
    };
  },
  initial: 'idle',
  on: {
    'conversation.clear': { guard: 'hasConversation', target: '.idle.fresh', actions: 'clearConversation' },
    // A vote belongs to its reply, whatever the chat is doing meanwhile (the next reply may be on its way).
    'reply.vote': { guard: 'changesVote', actions: ['recordVote', 'announceVote'] },
    'reply.voteSettled': { actions: 'recordVote' },
  },
  states: {
    idle: {
      initial: 'fresh',
      on: {
        'draft.change': { actions: 'updateDraft' },
        'message.submit': {
          guard: 'hasText',
          target: 'sending',
          actions: ['appendUserMessage', 'clearDraft'],
        },
      },
      states: {
        fresh: {
          description:
            "Nothing sent yet: the starters are offered (there are none: it is `ready`). A starter's click is a submit of its text. " +
            'A restored conversation goes on where it was: with Retry when its last reply was cut off or failed.',
          always: [
            { guard: 'lastReplyCut', target: 'retryable' },
            { guard: 'hasNoStarters', target: 'ready' },
            { guard: 'hasConversation', target: 'ready' },
          ],
        },
        ready: {},
        retryable: {
          description: 'The last reply failed, timed out or was stopped: it can be asked for again.',
          on: { 'reply.retry': { target: '#chat.sending', actions: 'dropFailedAttempt' } },
        },
        limited: {
          description:
            'A limit of the server refused the last request: the page says which and when to try again, and Retry ' +
            'waits until then. A new message may still be sent.',
          after: { limitWait: 'retryable' },
          exit: 'forgetLimit',
        },
      },
    },
    confirming: {
      // The reply proposed a write of the site: nothing is done until the visitor confirms the owner's text. Confirm
      // asks the server to perform it and reply; Cancel, or a new message, does nothing and says so.
      on: {
        'draft.change': { actions: 'updateDraft' },
        'action.confirm': { target: 'sending', actions: { type: 'settleConfirmation', params: 'confirmed' } },
        'action.cancel': { target: 'idle.ready', actions: { type: 'settleConfirmation', params: 'cancelled' } },
        'message.submit': {
          guard: 'hasText',
          target: 'sending',
          actions: [{ type: 'settleConfirmation', params: 'cancelled' }, 'appendUserMessage', 'clearDraft'],
        },
      },
    },
    sending: {
      exit: 'announceReplyEnded',
      invoke: {
        src: 'fetchReply',
        input: ({ context, event, self }): FetchReplyInput => ({
          text: context.messages.findLast(isFromUser)?.text ?? '',
          ...(context.history ? { history: earlierExchanges(context.messages, context.history) } : {}),
          ...(context.messages.filter(isFromUser).length === 1 ? { first: true as const } : {}),
          language: context.language,
          hostPage: context.hostPage,
          // Entered by the visitor's Confirm: the request performs the write the last reply proposed.
          confirm: event.type === 'action.confirm' ? context.messages.at(-1)?.confirmation?.token : undefined,
          parent: self,
        }),
        onDone: [
          { guard: 'proposesAction', target: 'confirming', actions: { type: 'appendReply', params: theReply } },
          { target: 'idle.ready', actions: { type: 'appendReply', params: theReply } },
        ],
        onError: [
          {
            guard: { type: 'isLimited', params: theFailure },
            target: 'idle.limited',
            actions: [
              { type: 'logError', params: theFailure },
              'appendError',
              { type: 'rememberLimit', params: theFailure },
            ],
          },
          {
            target: 'idle.retryable',
            actions: [
              { type: 'logError', params: theFailure },
              { type: 'appendError', params: theFailure },
            ],
          },
        ],
      },
      on: {
        'reply.stop': { target: 'idle.retryable', actions: 'appendStoppedReply' },
        // Before the first piece, and no piece itself: the wait for the reply goes on.
        'reply.sources': { actions: 'rememberSources' },
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

/**
 * The pending reply as a stopped message: what had arrived, with its sources and its token (a stopped reply can be voted
 * on) once any text has.
 */
export function stoppedReply(context: Pick<ChatContext, 'reply' | 'sources' | 'token'>): ChatMessage {
  return {
    text: context.reply,
    sender: 'bot',
    status: 'stopped',
    ...(context.reply ? { ...sourcesOf(context), ...feedbackOf(context) } : {}),
  };
}

/** The pending reply's token as a message's field, when the server gave one. */
function feedbackOf(context: Pick<ChatContext, 'token'>): { feedback?: ReplyFeedback } {
  return context.token ? { feedback: context.token } : {};
}

/** A reply's feedback with the visitor's new vote, which replaces the old one (its reason too). */
function votedOn(feedback: ReplyFeedback, { rating, reason }: ReplyVote): ReplyFeedback {
  return { token: feedback.token, uncovered: feedback.uncovered, rating, reason };
}

/** The pending reply's sources as a message's field, when there are any. */
function sourcesOf(context: Pick<ChatContext, 'sources'>): { sources?: ReplySource[] } {
  return context.sources?.length ? { sources: context.sources } : {};
}

/** The reply actor's answer, as the parameter of an action. */
function theReply({ event }: { event: { output: FetchReplyOutput } }): FetchReplyOutput {
  return event.output;
}

/** The pending reply's actions as a message's fields: the notes, and a write to confirm. */
function actionsOf(context: Pick<ChatContext, 'actions'>): Pick<ChatMessage, 'actions' | 'confirmation'> {
  const { notes, confirmation } = context.actions ?? {};
  return { ...(notes?.length ? { actions: notes } : {}), ...(confirmation ? { confirmation } : {}) };
}

/** What a failed request says: why the server refused a Confirm, else the spec's error. */
function failureText(texts: StatusTexts, error: unknown): string {
  const refused = (error as Partial<ConfirmRefusal> | undefined)?.confirmRefused;
  return (refused && texts[refused === 'expired' ? 'actionExpired' : 'actionFailed']) || texts.error;
}

/** The reply actor's rejection, as the parameter of a guard or an action. */
function theFailure({ event }: { event: { error: unknown } }): unknown {
  return event.error;
}

function isFromUser(message: ChatMessage): boolean {
  return message.sender === 'user';
}

/** What a submit sends: the starter it carries, or the box's contents. */
function submitted(context: ChatContext, event: ChatEvent): string {
  return event.type === 'message.submit' && event.text !== undefined ? event.text : context.draft;
}

/** The messages with the feedback of the reply whose token is `token` changed by `change`. */
function withFeedback(
  messages: ChatMessage[],
  token: string,
  change: (feedback: ReplyFeedback) => ReplyFeedback,
): ChatMessage[] {
  return messages.map((message) =>
    message.feedback?.token === token ? { ...message, feedback: change(message.feedback) } : message,
  );
}

/** A reply the model gave, as the visitor saw it: not a failure, an empty reply or a stopped one. */
function isAnswer(message: ChatMessage | undefined): message is ChatMessage {
  return message?.status === 'answer';
}

/**
 * The last `limit` exchanges before the latest message, oldest first: a visitor's message answered by exactly one reply
 * (a failure keeps what had streamed in as a message of its own before the error, so it is two and does not count).
 */
function earlierExchanges(messages: readonly ChatMessage[], limit: number): Exchange[] {
  const latest = messages.findLastIndex(isFromUser);
  const exchanges: Exchange[] = [];
  for (let index = 0; index < latest; index += 1) {
    const [question, answer, next] = [messages[index], messages[index + 1], messages[index + 2]];
    if (isFromUser(question) && isAnswer(answer) && (index + 2 === latest || next?.sender === 'user')) {
      exchanges.push({ question: question.text, answer: answer.text });
    }
  }
  return exchanges.slice(-limit);
}
