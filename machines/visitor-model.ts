import { setup } from 'xstate';
import { createTestModel, type TestPath } from 'xstate/graph';

/**
 * What a visitor can do to the chat, and what the provider (or time) can do in answer. The events carry no data: the
 * test that drives the real system picks the text and the reply.
 *
 * - `text.type`: the visitor puts a non-empty message in the message box, replacing what was there (the test picks
 *   the text; it may have leading or trailing spaces, markup or emoji, but not only whitespace).
 * - `whitespace.type`: the visitor puts only whitespace in the message box (spaces, a tab…), replacing what was
 *   there.
 * - `message.submit`: the visitor sends the box's contents, by pressing Enter in the box or clicking Send (either
 *   one: the test may alternate). Only possible while the box and the button are enabled, i.e. not while sending.
 * - `reply.slow`: the slow-reply time passes without a first piece of the reply.
 * - `reply.piece`: a piece of a streamed reply arrives (only when replies stream).
 * - `reply.content`: the reply completes with content: a whole answer, or the end of the stream.
 * - `reply.empty`: the reply completes without content (`null`, `''`, or a stream with no content).
 * - `reply.fail`: the pending request fails (an error, an HTTP error status, a dropped connection, a stream that
 *   breaks off, a timeout…).
 * - `reply.stop`: the visitor stops the pending reply (the Stop button or Escape, alternately).
 * - `starter.choose`: the visitor chooses one of the site's starter questions (by mouse or keyboard), which sends it
 *   (only with starters, before anything has been sent).
 * - `reply.retry`: the visitor asks again for the reply that failed or was stopped (the Retry button, by mouse or
 *   keyboard), whether or not they have typed a new message meanwhile.
 * - `reply.limit`: the page's server refuses the request for one of its limits, the per-client rate or the daily
 *   allowance (HTTP 429 with its code and `Retry-After`; only in proxy mode).
 * - `limit.pass`: the wait the refusal asked for passes.
 * - `vote.up` / `vote.down`: the visitor presses Helpful / Not helpful under the last reply (only with votes: a reply
 *   the page's own server gave, with its token).
 */
export type VisitorEvent =
  | { type: 'text.type' }
  | { type: 'whitespace.type' }
  | { type: 'message.submit' }
  | { type: 'starter.choose' }
  | { type: 'reply.slow' }
  | { type: 'reply.piece' }
  | { type: 'reply.content' }
  | { type: 'reply.empty' }
  | { type: 'reply.fail' }
  | { type: 'reply.stop' }
  | { type: 'reply.retry' }
  | { type: 'reply.limit' }
  | { type: 'limit.pass' }
  | { type: 'vote.up' }
  | { type: 'vote.down' };

/**
 * What the visitor sees, one state each. In every state the conversation shows all the messages exchanged so far,
 * oldest first; a driver keeps that transcript itself, since the model does not count messages. Retry is offered
 * exactly while the last reply failed or was stopped and nothing has been sent since (a driver tracks that too, as
 * typing keeps it offered).
 *
 * - `empty`: nothing typed yet; the box is empty, enabled, with the placeholder 'Your message here'.
 *
 * With starters, they are offered (in every state) exactly until the visitor's first message: a driver tracks that.
 * - `blank`: the box holds only whitespace; submitting sends nothing and adds no message.
 * - `typed`: the box holds a non-empty message; submitting sends it.
 * - `waiting`: a request is pending and no piece of the reply has arrived: the visitor's message is the last in the
 *   conversation, exactly as typed, with a typing indicator after it; the box is empty and disabled with the
 *   placeholder 'Sending...', the Send button is disabled, Stop is offered, Retry is not; exactly one request is
 *   pending, for that message alone.
 * - `slow`: as `waiting`, and a status says that the model is still working and that Stop is there.
 * - `streaming`: as `waiting`, but the reply so far shows in a bot bubble that grows, instead of the typing
 *   indicator, and the conversation is busy (`aria-busy`) so that it is announced once, complete.
 * - `answered`: the reply's content is the last message, from the bot; the box is enabled and focused.
 * - `unanswered`: the last message is the bot's 'No response received'; the box is enabled and focused.
 * - `failed`: the last message is the bot's 'Error: Unable to get response' (and the error was logged), after the
 *   text that had streamed in, if any; the box is enabled and focused; Retry is offered.
 * - `stopped`: the reply shows what had arrived and says it was stopped; the box is enabled and focused; Retry is
 *   offered.
 * - `redrafted`: after a reply that failed or was stopped, the visitor has typed a new non-empty message; Retry is
 *   still offered, and so is Send.
 * - `retrying`: the failed message is asked for again while the new message waits in the box: as `waiting`, but the
 *   box (disabled) holds that message. When the reply ends the message is still there, ready to send.
 * - `limited`: as `failed`, and under the error a hint in the visitor's language says which limit refused it (or the
 *   site's own `limit_message`) and when to try again; Retry is there but disabled until then.
 *
 * With votes, each reply with content has Helpful and Not helpful under it (`aria-pressed` false), and a vote goes to
 * the server as the reply's token and the rating, never a word of the conversation:
 * - `helpful`: as `answered`, with Helpful pressed; `unhelpful`: with Not helpful pressed and the five reasons offered.
 *   Pressing the other replaces the vote.
 * - `stoppedPartway`: as `stopped`, after some of the reply had arrived: the votes are under what had arrived.
 * - `stoppedVoted`: as `stoppedPartway`, with the visitor's vote on that stopped reply (either: the driver tracks it).
 */
export type VisitorState =
  | 'empty'
  | 'blank'
  | 'typed'
  | 'waiting'
  | 'slow'
  | 'streaming'
  | 'answered'
  | 'unanswered'
  | 'failed'
  | 'stopped'
  | 'redrafted'
  | 'retrying'
  | 'limited'
  | 'helpful'
  | 'unhelpful'
  | 'stoppedPartway'
  | 'stoppedVoted';

// Every idle state offers the same three moves. Submitting an empty or whitespace-only box is a self-loop: nothing
// is sent and nothing appears. It names its own state as target because xstate/graph skips a transition with neither
// target nor actions, and the paths must take it.
const typing = {
  'text.type': { target: 'typed' },
  'whitespace.type': { target: 'blank' },
} as const;
function submitNothing<TState extends VisitorState>(state: TState) {
  return { 'message.submit': { target: state, description: 'Nothing is sent and no message appears.' } } as const;
}
// How a pending reply can end, from any of the sending states.
const ending = {
  'reply.content': { target: 'answered' },
  'reply.fail': { target: 'failed' },
  'reply.stop': { target: 'stopped' },
} as const;
const retry = { 'reply.retry': { target: 'waiting' } } as const;
// After a failure or a stop, a new message keeps Retry offered (whitespace alone is a blank box like any other).
const redraft = { ...typing, 'text.type': { target: 'redrafted' } } as const;

/**
 * The invoke-free model of the chat as a visitor experiences it, for `createTestModel` from `xstate/graph` (which
 * refuses `invoke` and `after`). It is not the app's machine (`chat-machine.ts`): it names what can be observed, so
 * the same paths can drive the rendered app with a fake reply actor and the built app against a fake provider.
 * Without `streaming` (a build whose replies come whole) no piece arrives on its own, so the model has no
 * `streaming` state. With `starters` (a site that configures them) the visitor can choose one before typing anything.
 * With `limits` (a page behind its own server's limits) a request can be refused by one, before any piece arrives;
 * the model does not type while the limit's wait runs (the machine's own tests do). With `votes` (replies that come
 * with the server's token, proxy mode) the visitor votes on an answer, changes the vote, and votes on a reply stopped
 * partway.
 */
export function createVisitorMachine({
  streaming,
  starters = false,
  limits = false,
  votes = false,
}: {
  streaming: boolean;
  starters?: boolean;
  limits?: boolean;
  votes?: boolean;
}) {
  const firstPiece = streaming ? ({ 'reply.piece': { target: 'streaming' } } as const) : {};
  const refused = limits ? ({ 'reply.limit': { target: 'limited' } } as const) : {};
  // `empty` is only ever the start: nothing has been sent yet, so the starters are there.
  const chooseStarter = starters ? ({ 'starter.choose': { target: 'waiting' } } as const) : {};
  const voteOnAnswer = votes
    ? ({ 'vote.up': { target: 'helpful' }, 'vote.down': { target: 'unhelpful' } } as const)
    : {};
  // Without text there is nothing to vote on: only a reply stopped partway has the votes.
  const stopPartway = votes ? ({ 'reply.stop': { target: 'stoppedPartway' } } as const) : {};
  return setup({
    types: { events: {} as VisitorEvent },
  }).createMachine({
    id: 'visitor',
    initial: 'empty',
    states: {
      empty: {
        description: 'Nothing typed yet: the box is empty and enabled.',
        on: { ...typing, ...submitNothing('empty'), ...chooseStarter },
      },
      blank: {
        description: 'The box holds only whitespace.',
        on: { ...typing, ...submitNothing('blank') },
      },
      typed: {
        description: 'The box holds a non-empty message.',
        on: { ...typing, 'message.submit': { target: 'waiting' } },
      },
      waiting: {
        description: "The visitor's message is shown with a typing indicator; the controls are disabled; Stop.",
        on: {
          'reply.slow': { target: 'slow' },
          ...firstPiece,
          ...ending,
          ...refused,
          'reply.empty': { target: 'unanswered' },
        },
      },
      slow: {
        description: 'Still waiting for a first piece: a status says the model is working and that Stop is there.',
        on: { ...firstPiece, ...ending, ...refused, 'reply.empty': { target: 'unanswered' } },
      },
      ...(limits
        ? {
            limited: {
              description: "'Error: Unable to get response', a hint saying why and when to try again; Retry disabled.",
              on: { ...submitNothing('limited'), 'limit.pass': { target: 'failed' } },
            },
          }
        : {}),
      ...(streaming
        ? {
            streaming: {
              description: 'The reply grows in its bubble as pieces arrive; Stop.',
              on: { 'reply.piece': { target: 'streaming' }, ...ending, ...stopPartway },
            },
          }
        : {}),
      answered: {
        description: "The reply's content is the last message.",
        on: { ...typing, ...submitNothing('answered'), ...voteOnAnswer },
      },
      ...(votes
        ? {
            helpful: {
              description: 'The answer is marked Helpful; Not helpful replaces the vote.',
              on: { ...typing, ...submitNothing('helpful'), 'vote.down': { target: 'unhelpful' } },
            },
            unhelpful: {
              description: 'The answer is marked Not helpful, with the five reasons; Helpful replaces the vote.',
              on: { ...typing, ...submitNothing('unhelpful'), 'vote.up': { target: 'helpful' } },
            },
            stoppedPartway: {
              description: 'The reply stopped after some text, the votes under it; Retry.',
              on: { ...redraft, ...submitNothing('stoppedPartway'), ...retry, 'vote.down': { target: 'stoppedVoted' } },
            },
            stoppedVoted: {
              description: 'A vote on the stopped reply; the other replaces it; Retry.',
              on: { ...redraft, ...submitNothing('stoppedVoted'), ...retry, 'vote.up': { target: 'stoppedVoted' } },
            },
          }
        : {}),
      unanswered: {
        description: "The last message is 'No response received'.",
        on: { ...typing, ...submitNothing('unanswered') },
      },
      failed: {
        description: "The last message is 'Error: Unable to get response'; Retry.",
        on: { ...redraft, ...submitNothing('failed'), ...retry },
      },
      stopped: {
        description: 'The reply so far is shown as stopped; Retry.',
        on: { ...redraft, ...submitNothing('stopped'), ...retry },
      },
      redrafted: {
        description: 'A new message in the box after a failure or a stop: Send it, or Retry the old one.',
        on: { ...redraft, 'message.submit': { target: 'waiting' }, 'reply.retry': { target: 'retrying' } },
      },
      retrying: {
        description: 'The old message asked for again, the new one waiting in the disabled box; Stop.',
        on: {
          // Whatever the answer, the new message is still in the box: sent next, or Retry again.
          'reply.content': { target: 'typed' },
          'reply.empty': { target: 'typed' },
          'reply.fail': { target: 'redrafted' },
          'reply.stop': { target: 'redrafted' },
        },
      },
    },
  });
}

/** The model of a build whose replies stream (the proxy's default). */
export const visitorMachine = createVisitorMachine({ streaming: true });
export type VisitorMachine = typeof visitorMachine;

/** A test model: `createVisitorModel({ streaming }).testPath(path, { states, events })`, or `path.test(...)`. */
export function createVisitorModel(options: {
  streaming: boolean;
  starters?: boolean;
  limits?: boolean;
  votes?: boolean;
}) {
  return createTestModel(createVisitorMachine(options));
}
export type VisitorModel = ReturnType<typeof createVisitorModel>;

export type VisitorSnapshot = ReturnType<typeof visitorMachine.getInitialSnapshot>;
export type VisitorPath = TestPath<VisitorSnapshot, VisitorEvent>;
