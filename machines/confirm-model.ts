import { setup } from 'xstate';
import { createTestModel, type TestPath } from 'xstate/graph';

/**
 * What the visitor and the server can do around a write the model proposed (issue 49). The events carry no data: the
 * test that drives the rendered app picks the texts, the tokens and the replies.
 *
 * - `reply.propose`: the pending reply ends with content and a confirmation (the owner's text and a token).
 * - `reply.content`: the pending reply ends with content and nothing to confirm.
 * - `action.confirm`: the visitor presses Confirm (a click or the keyboard, alternately).
 * - `action.cancel`: the visitor presses Cancel (a click or the keyboard, alternately).
 * - `text.type`: the visitor types a non-empty message in the box, replacing what was there.
 * - `message.submit`: the visitor sends the box's contents (Enter in the box or Send, alternately).
 * - `conversation.clear`: the visitor presses New conversation.
 * - `reply.expired` / `reply.failed`: the server refuses the Confirm's request: the token expired, or the owner's API
 *   failed.
 * - `reply.stop`: the visitor stops the Confirm's request before its reply.
 * - `reply.retry`: the visitor asks again (Retry) after a refused or stopped Confirm.
 */
export type ConfirmEvent =
  | { type: 'reply.propose' }
  | { type: 'reply.content' }
  | { type: 'action.confirm' }
  | { type: 'action.cancel' }
  | { type: 'text.type' }
  | { type: 'message.submit' }
  | { type: 'conversation.clear' }
  | { type: 'reply.expired' }
  | { type: 'reply.failed' }
  | { type: 'reply.stop' }
  | { type: 'reply.retry' };

/**
 * What the visitor sees, one state each. Every proposal stays in the conversation under the reply that made it, saying
 * what the visitor chose; at most the last one has Confirm and Cancel, and only while the chat waits for the visitor.
 *
 * - `asking`: the visitor's question is pending (no confirmation token goes with it); the box is disabled.
 * - `proposed`: the reply shows the owner's confirmation text with Confirm and Cancel, which took the focus (or the
 *   box has it, after the visitor sent an empty box); the box is empty, enabled, and says to confirm, cancel or type.
 * - `proposedTyped`: as `proposed`, with a new message in the box (the box has the focus).
 * - `confirmedWaiting`: the Confirm's request is pending, with the proposal's token; the proposal says 'Confirmed.'
 *   and has no buttons; the box is disabled; Stop.
 * - `told`: the reply to the Confirm (the result) is the last message; the box has the focus again.
 * - `cancelled`: the proposal says 'Cancelled: nothing was done.', without buttons; the server was told once; no
 *   request was made; the box is enabled with its usual placeholder.
 * - `cancelledBySending`: as `cancelled`, and the visitor's new message is pending (without a token).
 * - `answered`: a reply without a proposal is the last message.
 * - `expired` / `actionFailed`: the Confirm was refused: the sentence saying so is the last message; Retry.
 * - `stopped`: the Confirm's request was stopped; Retry.
 * - `retried`: the visitor's question is asked again, without the token.
 * - `cleared`: New conversation: nothing is shown, nothing to confirm.
 */
export type ConfirmState =
  | 'asking'
  | 'proposed'
  | 'proposedTyped'
  | 'confirmedWaiting'
  | 'told'
  | 'cancelled'
  | 'cancelledBySending'
  | 'answered'
  | 'expired'
  | 'actionFailed'
  | 'stopped'
  | 'retried'
  | 'cleared';

// While a proposal waits, the visitor can settle it, or leave it with the conversation.
const settle = {
  'action.confirm': { target: 'confirmedWaiting' },
  'action.cancel': { target: 'cancelled' },
  'conversation.clear': { target: 'cleared' },
  'text.type': { target: 'proposedTyped' },
} as const;
// How a request that was not a Confirm ends: with a new proposal, or an answer.
const answer = { 'reply.propose': { target: 'proposed' }, 'reply.content': { target: 'answered' } } as const;
const retry = { 'reply.retry': { target: 'retried' } } as const;

/**
 * The invoke-free model of a proposed write as the visitor sees it, for `createTestModel` (src/chat/confirming.test.tsx
 * drives it against the real chat machine in the rendered app). It starts with the visitor's question pending. It is
 * not the chat machine: it names what can be observed, every path into, through and out of `confirming`.
 */
export const confirmMachine = setup({ types: { events: {} as ConfirmEvent } }).createMachine({
  id: 'confirm',
  initial: 'asking',
  states: {
    asking: { description: "The visitor's question is pending.", on: answer },
    proposed: {
      description: "The owner's text with Confirm and Cancel; the box says to confirm, cancel or type.",
      // Sending an empty box settles nothing: it names its state so that the paths take it.
      on: { ...settle, 'message.submit': { target: 'proposed' } },
    },
    proposedTyped: {
      description: 'A new message in the box: sending it cancels the proposal.',
      on: { ...settle, 'message.submit': { target: 'cancelledBySending' } },
    },
    confirmedWaiting: {
      description: "The Confirm's request is pending with the token; the proposal says 'Confirmed.'",
      on: {
        'reply.content': { target: 'told' },
        'reply.expired': { target: 'expired' },
        'reply.failed': { target: 'actionFailed' },
        'reply.stop': { target: 'stopped' },
      },
    },
    told: { description: 'The result of the action is told.' },
    cancelled: { description: "The proposal says 'Cancelled: nothing was done.'" },
    cancelledBySending: { description: 'The proposal says it was cancelled; the new message is pending.', on: answer },
    answered: { description: 'A reply without a proposal.' },
    expired: { description: 'The confirmation expired: the sentence says so; Retry.', on: retry },
    actionFailed: { description: 'The action could not be done: the sentence says so; Retry.', on: retry },
    stopped: { description: "The Confirm's request was stopped; Retry.", on: retry },
    retried: { description: "The visitor's question asked again, without the token.", on: answer },
    cleared: { description: 'A new conversation: nothing to confirm.' },
  },
});
export type ConfirmMachine = typeof confirmMachine;

export function createConfirmModel() {
  return createTestModel(confirmMachine);
}
export type ConfirmModel = ReturnType<typeof createConfirmModel>;
export type ConfirmSnapshot = ReturnType<typeof confirmMachine.getInitialSnapshot>;
export type ConfirmPath = TestPath<ConfirmSnapshot, ConfirmEvent>;
