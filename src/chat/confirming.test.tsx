import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it, vi } from 'vitest';
import { ACTIONS_CONFIRM_PATH, type ActionConfirmation } from '../../contract/actions';
import { type ConfirmRefusal, chatMachine, type Sender } from '../../machines/chat-machine';
import { type ConfirmPath, type ConfirmState, confirmMachine, createConfirmModel } from '../../machines/confirm-model';
import { chatScreen } from '../../testing/chat-screen';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import { describeVisitorPath, getModelCoverage, getVisitorPaths } from '../../testing/visitor-paths';
import { App } from '../app';
import { loadMarkdown } from '../markdown/load-markdown';

// Every path through the chat's `confirming` state (issue 49), walked in the rendered app with the real chat machine
// and a fake reply actor: what the visitor sees of a proposed write in each state, what each request asked for (the
// token goes with the Confirm's request and no other), and that the server is told of each cancellation once.

// The texts the visitor reads, spelled out: the tests check the product, not the constants the code uses.
const PLACEHOLDER = 'Your message here';
const SENDING_PLACEHOLDER = 'Sending...';
const CONFIRMING_PLACEHOLDER = 'Confirm or cancel above, or type a new message';
const CONFIRMED = 'Confirmed.';
const CANCELLED = 'Cancelled: nothing was done.';
const EXPIRED = 'This confirmation has expired. Use Retry to ask again.';
const ACTION_FAILED = 'The action could not be done.';

const QUESTION = 'Call me back?';
// Markup in the owner's text (filled with a visitor's input) and in a message is shown as text. No `{` or `[` in what
// is typed: user-event reads those as key names.
const PROPOSALS = [
  'Ask the shop to call +44 1234 567890 in the morning?',
  'Ask the shop to call <b>+44 1234</b> in the afternoon?',
];
const TYPED = ['Opening hours?', 'Grüße 👋 <i>x</i>'];
const REPLIES = ['I can ask the shop to call you: please confirm.', 'Here is what I can do.'];
const TOLD = 'Done: the shop will call you tomorrow morning.';
const TOLD_NOTE = 'Asked the shop for a call back';

const ui = {
  ...chatScreen,
  confirm: () => screen.queryByRole('button', { name: 'Confirm' }),
  cancel: () => screen.queryByRole('button', { name: 'Cancel' }),
  groups: () => screen.queryAllByRole('group', { name: 'Confirmation' }),
};

/** The bubbles in the conversation, in order, as rendered. */
function shownMessages() {
  return Array.from(ui.log().querySelectorAll<HTMLElement>('[data-sender]'), (bubble) => ({
    text: bubble.textContent ?? '',
    sender: bubble.dataset.sender as Sender,
  }));
}

/** The proposals in the conversation, in order: the owner's text and what the visitor chose (or `pending`). */
function shownProposals() {
  return ui.groups().map((group) => ({
    text: group.querySelector('p')?.textContent ?? '',
    state: group.dataset.confirmation,
    said: group.querySelector('p + p')?.textContent ?? null,
  }));
}

function renderChat() {
  const fake = createControllableFetchReply();
  const user = userEvent.setup({ delay: null });
  render(<App logic={chatMachine.provide({ actors: { fetchReply: fake.logic }, delays: { slowHint: 60_000 } })} />);
  return { fake, user };
}

/** Sends the question as a visitor does: the path's start (`asking`). */
async function ask(user: ReturnType<typeof userEvent.setup>) {
  await user.type(ui.input(), QUESTION);
  await user.keyboard('{Enter}');
}

/** What the reply actor rejects with when the server refused the Confirm, as the real one does. */
function refusal(reason: ConfirmRefusal['confirmRefused']): Error {
  return Object.assign(new Error(`Confirm refused: ${reason}`), { confirmRefused: reason });
}

interface Proposal {
  text: string;
  state: 'pending' | 'confirmed' | 'cancelled';
  token: string;
}

async function runPath(path: ConfirmPath, pathIndex: number) {
  await loadMarkdown();
  // The page tells its own server of a cancellation; nothing else here fetches.
  const posted = vi.spyOn(globalThis, 'fetch').mockImplementation(async () => new Response(null, { status: 204 }));
  const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const { fake, user } = renderChat();

  const transcript: { text: string; sender: Sender }[] = [];
  const proposals: Proposal[] = [];
  const requests: { text: string; confirm?: string }[] = [];
  const cancels: { cancel: true; confirmation: string; conversation: string }[] = [];
  const failures: Error[] = [];
  // The chat's id as the server names it in each confirmation (the request's chunk makes it: actions-request.test.ts).
  const conversation = 'conversation-under-test';
  let box = '';
  let asked = QUESTION;
  let lastEvent = 'message.submit';
  // Each way of pressing is taken: a click or the keyboard, alternately, starting differently on alternate paths.
  let presses = pathIndex;
  let submits = pathIndex;
  let bySend = false;
  let draws = pathIndex;
  const next = <T,>(list: readonly T[]) => list[draws++ % list.length];

  const startRequest = (text: string, confirm?: string) => {
    requests.push(confirm ? { text, confirm } : { text });
  };
  const pending = () => proposals.find((proposal) => proposal.state === 'pending');
  const cancelPending = () => {
    const proposal = pending() as Proposal;
    proposal.state = 'cancelled';
    cancels.push({ cancel: true, confirmation: proposal.token, conversation });
  };
  // Settles the pending request: `shown` joins the conversation.
  const settle = async (outcome: () => void, shown: string) => {
    await act(async () => outcome());
    transcript.push({ text: shown, sender: 'bot' });
  };
  // A click, or the keyboard: from the proposal, which has the focus when it comes, Tab reaches its buttons in order
  // (Confirm, then Cancel); from elsewhere the visitor has tabbed to the button.
  const press = async (button: HTMLElement, { tabs, key }: { tabs: number; key: '{Enter}' | ' ' }) => {
    if (presses++ % 2 === 0) {
      await user.click(button);
      return;
    }
    if (ui.groups().at(-1) === document.activeElement) {
      for (let tab = 0; tab < tabs; tab += 1) await user.tab();
      expect(button).toHaveFocus();
    } else {
      act(() => button.focus());
    }
    await user.keyboard(key);
  };

  const expectScreen = () => {
    expect(shownMessages()).toEqual(transcript);
    expect(shownProposals()).toEqual(
      proposals.map(({ text, state }) => ({
        text,
        state,
        said: state === 'pending' ? null : state === 'confirmed' ? CONFIRMED : CANCELLED,
      })),
    );
    // What each request asked: the visitor's message, and the token on the Confirm's request alone.
    expect(
      fake.calls.map(({ input }) =>
        input.confirm ? { text: input.text, confirm: input.confirm } : { text: input.text },
      ),
    ).toEqual(requests);
    // Each cancellation told once, as its token and conversation; nothing else posted.
    expect(
      posted.mock.calls.map(([url, init]) => ({ url, body: JSON.parse(String((init as RequestInit).body)) })),
    ).toEqual(cancels.map((body) => ({ url: ACTIONS_CONFIRM_PATH, body })));
    expect(consoleError.mock.calls).toEqual(failures.map((failure) => expect.arrayContaining([failure])));
  };

  const expectPending = () => {
    expectScreen();
    expect(ui.input()).toBeDisabled();
    expect(ui.input()).toHaveValue(box);
    expect(ui.input()).toHaveAttribute('placeholder', SENDING_PLACEHOLDER);
    expect(ui.send()).toBeDisabled();
    expect(ui.stop()).toBeEnabled();
    expect(ui.typing()).toBeInTheDocument();
    expect(ui.confirm()).toBeNull();
    expect(ui.cancel()).toBeNull();
    expect(ui.retry()).toBeNull();
    expect(fake.latest().signal.aborted).toBe(false);
  };

  const expectIdle = ({ retry }: { retry: boolean }) => {
    expectScreen();
    expect(ui.input()).toBeEnabled();
    expect(ui.input()).toHaveValue(box);
    expect(ui.input()).toHaveAttribute('placeholder', PLACEHOLDER);
    expect(ui.send()).toBeEnabled();
    expect(ui.stop()).toBeNull();
    expect(ui.typing()).toBeNull();
    expect(ui.confirm()).toBeNull();
    expect(ui.cancel()).toBeNull();
    if (retry) expect(ui.retry()).toBeEnabled();
    else expect(ui.retry()).toBeNull();
    // After a reply, and after Cancel took its button away, the box has the focus: the visitor types on.
    if (lastEvent !== 'conversation.clear') expect(ui.input()).toHaveFocus();
  };

  const expectProposed = () => {
    expectScreen();
    const proposal = pending() as Proposal;
    const group = ui.groups().at(-1) as HTMLElement;
    expect(group).toHaveAttribute('data-confirmation', 'pending');
    expect(within(group).getByText(proposal.text)).toBeInTheDocument();
    // The focus lands on the group: a screen reader says its name and, as its description, what would be done.
    expect(group).toHaveAccessibleDescription(proposal.text);
    expect(within(group).getByRole('button', { name: 'Confirm' })).toBeEnabled();
    expect(within(group).getByRole('button', { name: 'Cancel' })).toBeEnabled();
    // One proposal waits: an earlier one says what the visitor chose.
    expect(screen.getAllByRole('button', { name: 'Confirm' })).toHaveLength(1);
    expect(ui.input()).toBeEnabled();
    expect(ui.input()).toHaveValue(box);
    expect(ui.input()).toHaveAttribute('placeholder', CONFIRMING_PLACEHOLDER);
    expect(ui.send()).toBeEnabled();
    expect(ui.stop()).toBeNull();
    expect(ui.retry()).toBeNull();
    expect(ui.typing()).toBeNull();
    // The proposal takes the focus when it comes; then it is where the visitor put it: the box, or Send (an empty box
    // sends nothing, so nothing takes the focus from it).
    const focused =
      lastEvent === 'reply.propose' ? group : lastEvent === 'message.submit' && bySend ? ui.send() : ui.input();
    expect(focused).toHaveFocus();
  };

  await ask(user);
  transcript.push({ text: QUESTION, sender: 'user' });
  startRequest(QUESTION);

  const states: Record<ConfirmState, () => void> = {
    asking: expectPending,
    retried: expectPending,
    cancelledBySending: () => {
      expectPending();
      expect(proposals.at(-1)?.state).toBe('cancelled');
    },
    confirmedWaiting: () => {
      expectPending();
      expect(fake.latest().input.confirm).toBe(proposals.at(-1)?.token);
    },
    proposed: () => {
      expectProposed();
      expect(box).toBe('');
    },
    proposedTyped: () => {
      expectProposed();
      expect(box).not.toBe('');
    },
    told: () => {
      expectIdle({ retry: false });
      expect(within(ui.log()).getByText(TOLD_NOTE)).toBeInTheDocument();
      expect(proposals.at(-1)?.state).toBe('confirmed');
    },
    answered: () => expectIdle({ retry: false }),
    cancelled: () => {
      expectIdle({ retry: false });
      expect(proposals.at(-1)?.state).toBe('cancelled');
    },
    expired: () => {
      expectIdle({ retry: true });
      expect(shownMessages().at(-1)).toEqual({ text: EXPIRED, sender: 'bot' });
    },
    actionFailed: () => {
      expectIdle({ retry: true });
      expect(shownMessages().at(-1)).toEqual({ text: ACTION_FAILED, sender: 'bot' });
    },
    stopped: () => {
      expectIdle({ retry: true });
      expect(screen.getByText('Reply stopped')).toBeInTheDocument();
      expect(fake.latest().signal.aborted).toBe(true);
    },
    cleared: () => {
      expectIdle({ retry: false });
      expect(shownMessages()).toEqual([]);
      expect(ui.groups()).toEqual([]);
    },
  };

  await path.test({
    states,
    events: {
      'reply.propose': async () => {
        const text = next(PROPOSALS);
        const reply = next(REPLIES);
        const token = `confirmation-token-${proposals.length + 1}`;
        const confirmation: ActionConfirmation = {
          action: 'request_callback',
          text,
          token,
          conversation,
          expires: Date.now() + 300_000,
        };
        await act(async () => fake.latest().actions({ notes: [], confirmation }));
        await settle(() => fake.latest().resolve(reply), reply);
        proposals.push({ text, state: 'pending', token });
        lastEvent = 'reply.propose';
      },
      'reply.content': async () => {
        // The Confirm's reply tells the result, with the note of the action the server called.
        const told = requests.at(-1)?.confirm !== undefined;
        const reply = told ? TOLD : next(REPLIES);
        if (told) {
          const note = { action: 'request_callback', text: TOLD_NOTE, inputs: { when: 'morning' } };
          await act(async () => fake.latest().actions({ notes: [note] }));
        }
        await settle(() => fake.latest().resolve(reply), reply);
        lastEvent = 'reply.content';
      },
      'action.confirm': async () => {
        const proposal = pending() as Proposal;
        await press(ui.confirm() as HTMLElement, { tabs: 1, key: '{Enter}' });
        proposal.state = 'confirmed';
        startRequest(asked, proposal.token);
        lastEvent = 'action.confirm';
      },
      'action.cancel': async () => {
        await press(ui.cancel() as HTMLElement, { tabs: 2, key: ' ' });
        cancelPending();
        lastEvent = 'action.cancel';
      },
      'text.type': async () => {
        box = next(TYPED);
        const input = ui.input() as HTMLInputElement;
        await user.type(input, box, { initialSelectionStart: 0, initialSelectionEnd: input.value.length });
        lastEvent = 'text.type';
      },
      'message.submit': async () => {
        bySend = submits++ % 2 === 1;
        if (bySend) {
          await user.click(ui.send());
        } else {
          await user.click(ui.input());
          await user.keyboard('{Enter}');
        }
        if (box !== '') {
          cancelPending();
          transcript.push({ text: box, sender: 'user' });
          startRequest(box);
          asked = box;
          box = '';
        }
        lastEvent = 'message.submit';
      },
      'conversation.clear': async () => {
        await user.click(screen.getByRole('button', { name: 'New conversation' }));
        transcript.length = 0;
        proposals.length = 0;
        lastEvent = 'conversation.clear';
      },
      'reply.expired': async () => {
        const failure = refusal('expired');
        failures.push(failure);
        await settle(() => fake.latest().reject(failure), EXPIRED);
        lastEvent = 'reply.expired';
      },
      'reply.failed': async () => {
        const failure = refusal('failed');
        failures.push(failure);
        await settle(() => fake.latest().reject(failure), ACTION_FAILED);
        lastEvent = 'reply.failed';
      },
      'reply.stop': async () => {
        await user.click(ui.stop() as HTMLElement);
        lastEvent = 'reply.stop';
      },
      'reply.retry': async () => {
        await press(ui.retry() as HTMLElement, { tabs: 0, key: '{Enter}' });
        // The refused attempt gives way, the proposal with it; the visitor's message is asked again, without a token.
        transcript.splice(transcript.findLastIndex((message) => message.sender === 'user') + 1);
        proposals.pop();
        startRequest(asked);
        lastEvent = 'reply.retry';
      },
    },
  });
}

it('has no WCAG 2.1 A/AA violation axe can find in jsdom while a proposal waits (the browser checks colours)', async () => {
  await loadMarkdown();
  const { fake, user } = renderChat();
  await ask(user);
  const confirmation = {
    action: 'request_callback',
    text: PROPOSALS[0],
    token: 'confirmation-token-axe',
    conversation: 'conversation-under-test',
    expires: Date.now() + 300_000,
  };
  await act(async () => fake.latest().actions({ notes: [], confirmation }));
  await act(async () => fake.latest().resolve(REPLIES[0]));
  expect(ui.confirm()).toBeInTheDocument();

  const { violations } = await axe.run(document.body, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  });
  expect(violations.map(({ id, nodes }) => `${id}: ${nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual(
    [],
  );
});

describe('a write the model proposed, as the visitor confirms or cancels it (model-based)', () => {
  const paths = getVisitorPaths(createConfirmModel());

  it('runs paths that cover every state and every transition of the confirmation model', () => {
    expect(getModelCoverage(paths, confirmMachine)).toEqual({
      states: { total: 13, uncovered: [] },
      transitions: { total: 23, uncovered: [] },
    });
    // The check notices a path left out.
    expect(getModelCoverage(paths.slice(1), confirmMachine).transitions.uncovered).not.toEqual([]);
  });

  paths.forEach((path, index) => {
    it(describeVisitorPath(path), () => runPath(path, index));
  });
});
