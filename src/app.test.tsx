import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { type ChatMessage, chatMachine, type FetchReplyOutput, type Sender } from '../machines/chat-machine';
import { describeVisitorPath, getModelCoverage, getVisitorPaths, type VisitorPath } from '../machines/visitor-model';
import { createControllableFetchReply } from '../testing/controllable-reply';
import { App } from './app';

// The spec's visible texts, spelled out: the tests check the product, not the constants the code happens to use.
const PLACEHOLDER = 'Your message here';
const SENDING_PLACEHOLDER = 'Sending...';
const NO_CONTENT = 'No response received';
const ERROR = 'Error: Unable to get response';

function renderChat() {
  const fake = createControllableFetchReply();
  // No delay between keystrokes: nothing in the app depends on typing speed, and it keeps the suite fast.
  const user = userEvent.setup({ delay: null });
  render(<App logic={chatMachine.provide({ actors: { fetchReply: fake.logic } })} />);
  return { user, fake };
}

const ui = {
  log: () => screen.getByRole('log', { name: 'Conversation' }),
  input: () => screen.getByRole('textbox', { name: 'Message' }),
  send: () => screen.getByRole('button', { name: 'Send' }),
};

/** The bubbles in the conversation, in order, with their text exactly as rendered. */
function shownMessages(): ChatMessage[] {
  return Array.from(ui.log().querySelectorAll<HTMLElement>('[data-sender]'), (bubble) => ({
    text: bubble.textContent ?? '',
    sender: bubble.dataset.sender as Sender,
  }));
}

function expectComposerIdle() {
  expect(ui.input()).toBeEnabled();
  expect(ui.input()).toHaveAttribute('placeholder', PLACEHOLDER);
  expect(ui.send()).toBeEnabled();
}

// What the model's `text.type`, `whitespace.type` and replies use, in turn. No `{` or `[`: user-event reads those
// as key names.
const TEXTS = ['Hello there', '  spaced out  ', '<b>bold</b> & <script>alert(1)</script>', 'Grüße 👋 naïve café'];
const BLANKS = ['   ', ' \u00a0 '];
const REPLIES = ['Hi! How can I help?', ' <i>markup</i> in a reply 🤖 '];
const EMPTY_REPLIES: FetchReplyOutput[] = [null, ''];

/**
 * Runs one generated path against the rendered app. The model says where the visitor is; this keeps the transcript
 * the visitor should see, and checks the whole screen in every state.
 */
async function runPath(path: VisitorPath, pathIndex: number) {
  const { user, fake } = renderChat();
  // Every console.error must be one of the failures the path caused: React's warnings fail the test too.
  const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const transcript: ChatMessage[] = [];
  const failures: Error[] = [];
  let box = '';
  let sent = '';
  let lastEvent = '';
  // Alternate Enter and the Send button, starting differently on alternate paths, so both send real messages.
  let submits = pathIndex;
  let texts = 0;
  let blanks = 0;
  let replies = 0;
  let emptyReplies = 0;

  const replace = async (text: string) => {
    await user.clear(ui.input());
    await user.type(ui.input(), text);
    box = text;
  };

  const expectConversation = () => {
    expect(shownMessages()).toEqual(transcript);
    expect(fake.calls.map((call) => call.input)).toEqual(
      transcript.filter((message) => message.sender === 'user').map(({ text }) => ({ text })),
    );
    expect(consoleError.mock.calls).toEqual(failures.map((failure) => expect.arrayContaining([failure])));
  };

  const expectIdleWithEmptyBox = () => {
    expectConversation();
    expectComposerIdle();
    expect(ui.input()).toHaveValue('');
  };

  const expectReplied = (last: string) => {
    expectIdleWithEmptyBox();
    expect(shownMessages().at(-1)).toEqual({ text: last, sender: 'bot' });
    // Right after a reply the box has focus again, so the visitor can type on.
    if (lastEvent.startsWith('reply.')) expect(ui.input()).toHaveFocus();
  };

  await path.test({
    states: {
      empty: () => {
        expectIdleWithEmptyBox();
        expect(shownMessages()).toEqual([]);
      },
      blank: () => {
        expectConversation();
        expectComposerIdle();
        expect(ui.input()).toHaveValue(box);
        expect(box.trim()).toBe('');
      },
      typed: () => {
        expectConversation();
        expectComposerIdle();
        expect(ui.input()).toHaveValue(box);
      },
      sending: () => {
        expectConversation();
        expect(shownMessages().at(-1)).toEqual({ text: sent, sender: 'user' });
        expect(ui.input()).toBeDisabled();
        expect(ui.input()).toHaveValue('');
        expect(ui.input()).toHaveAttribute('placeholder', SENDING_PLACEHOLDER);
        expect(ui.send()).toBeDisabled();
        expect(fake.latest().input).toEqual({ text: sent });
        expect(fake.latest().signal.aborted).toBe(false);
      },
      answered: () => expectReplied(REPLIES[(replies - 1) % REPLIES.length]),
      unanswered: () => expectReplied(NO_CONTENT),
      failed: () => {
        expectReplied(ERROR);
        expect(consoleError.mock.lastCall).toContain(failures.at(-1));
      },
    },
    events: {
      'text.type': async () => {
        await replace(TEXTS[texts++ % TEXTS.length]);
        lastEvent = 'text.type';
      },
      'whitespace.type': async () => {
        await replace(BLANKS[blanks++ % BLANKS.length]);
        lastEvent = 'whitespace.type';
      },
      'message.submit': async ({ state }) => {
        if (submits++ % 2 === 0) {
          await user.click(ui.input());
          await user.keyboard('{Enter}');
        } else {
          await user.click(ui.send());
        }
        // The model says whether this submit sends; if it does not, the checks in its state prove nothing was sent.
        if (state.matches('sending')) {
          sent = box;
          transcript.push({ text: sent, sender: 'user' });
          box = '';
        }
        lastEvent = 'message.submit';
      },
      'reply.content': async () => {
        const reply = REPLIES[replies++ % REPLIES.length];
        await act(async () => fake.latest().resolve(reply));
        transcript.push({ text: reply, sender: 'bot' });
        lastEvent = 'reply.content';
      },
      'reply.empty': async () => {
        const reply = EMPTY_REPLIES[emptyReplies++ % EMPTY_REPLIES.length];
        await act(async () => fake.latest().resolve(reply));
        transcript.push({ text: NO_CONTENT, sender: 'bot' });
        lastEvent = 'reply.empty';
      },
      'reply.fail': async () => {
        const failure = new Error(`provider failure ${failures.length + 1}`);
        failures.push(failure);
        await act(async () => fake.latest().reject(failure));
        transcript.push({ text: ERROR, sender: 'bot' });
        lastEvent = 'reply.fail';
      },
    },
  });
}

describe('the chat as a visitor uses it (model-based)', () => {
  const paths = getVisitorPaths();

  it('runs paths that cover every state and every transition of the visitor model', () => {
    expect(getModelCoverage(paths)).toEqual({
      states: { total: 7, uncovered: [] },
      transitions: { total: 21, uncovered: [] },
    });
  });

  it('has a coverage check that notices a path left out', () => {
    const blankSubmit = paths.find(
      (path) => describeVisitorPath(path) === 'empty → whitespace.type → blank → message.submit → blank',
    );
    expect(blankSubmit).toBeDefined();
    expect(getModelCoverage(paths.filter((path) => path !== blankSubmit))).toEqual({
      states: { total: 7, uncovered: [] },
      transitions: { total: 21, uncovered: ['blank --message.submit--> blank'] },
    });
    expect(getModelCoverage([]).states.uncovered).toHaveLength(7);
  });

  paths.forEach((path, index) => {
    it(describeVisitorPath(path), () => runPath(path, index));
  });
});

describe('the chat screen', () => {
  it('is a main landmark titled by a level-1 heading "AI Assistant"', () => {
    renderChat();
    const main = screen.getByRole('main');
    expect(within(main).getByRole('heading', { level: 1 })).toHaveTextContent(/^AI Assistant$/);
    expect(within(main).getByRole('log', { name: 'Conversation' })).toBeInTheDocument();
    expect(within(main).getByRole('textbox', { name: 'Message' })).toBeInTheDocument();
    expect(within(main).getByRole('button', { name: 'Send' })).toBeInTheDocument();
  });

  it('announces the conversation politely', () => {
    renderChat();
    expect(ui.log()).toHaveAttribute('aria-live', 'polite');
  });

  it('sends with the Send button as with Enter', async () => {
    const { user, fake } = renderChat();
    await user.type(ui.input(), 'Sent by click');

    await user.click(ui.send());

    expect(shownMessages()).toEqual([{ text: 'Sent by click', sender: 'user' }]);
    expect(fake.calls.map((call) => call.input)).toEqual([{ text: 'Sent by click' }]);
    expect(ui.input()).toBeDisabled();
    expect(ui.input()).toHaveValue('');
  });

  it('shows markup in a message as text and creates no element from it', async () => {
    const { user, fake } = renderChat();
    const markup = '<img src="x" onerror="alert(1)"><script>window.hacked = true</script>';
    const replyMarkup = '<a href="https://example.test">click</a><b>bold</b>';
    await user.type(ui.input(), markup);
    await user.keyboard('{Enter}');
    await act(async () => fake.latest().resolve(replyMarkup));

    expect(shownMessages()).toEqual([
      { text: markup, sender: 'user' },
      { text: replyMarkup, sender: 'bot' },
    ]);
    expect(within(ui.log()).queryByRole('img')).toBeNull();
    expect(within(ui.log()).queryByRole('link')).toBeNull();
    expect(ui.log().querySelector('img, script, a, b')).toBeNull();
    expect(window).not.toHaveProperty('hacked');
  });

  it('sends only the latest message, not the conversation before it', async () => {
    const { user, fake } = renderChat();
    await user.type(ui.input(), 'first{Enter}');
    await act(async () => fake.latest().resolve('first answer'));
    await user.type(ui.input(), 'second{Enter}');

    expect(fake.calls.map((call) => call.input)).toEqual([{ text: 'first' }, { text: 'second' }]);
    expect(shownMessages()).toEqual([
      { text: 'first', sender: 'user' },
      { text: 'first answer', sender: 'bot' },
      { text: 'second', sender: 'user' },
    ]);
  });

  it('scrolls the conversation to the newest message', async () => {
    const { user, fake } = renderChat();
    const log = ui.log();
    // jsdom lays nothing out: give the list a content height that grows with its messages.
    Object.defineProperty(log, 'scrollHeight', {
      configurable: true,
      get: () => 100 * log.querySelectorAll('[data-sender]').length,
    });
    expect(log.scrollTop).toBe(0);

    await user.type(ui.input(), 'Hello{Enter}');
    await waitFor(() => expect(log.scrollTop).toBe(100));

    await act(async () => fake.latest().resolve('Hi there'));
    await waitFor(() => expect(log.scrollTop).toBe(200));
  });

  it('leaves the focus where the visitor put it while waiting, rather than pulling it back to the box', async () => {
    const { user, fake } = renderChat();
    await user.type(ui.input(), 'Hello{Enter}');
    act(() => ui.log().focus());

    await act(async () => fake.latest().resolve('Hi there'));

    expect(ui.input()).toBeEnabled();
    expect(ui.log()).toHaveFocus();
  });

  it('cancels the Enter that confirms an IME composition (a browser then does not submit), not a plain Enter', () => {
    renderChat();
    fireEvent.change(ui.input(), { target: { value: 'にほん' } });

    // A keydown whose default is prevented does not submit the form in a browser.
    expect(fireEvent.keyDown(ui.input(), { key: 'Enter', isComposing: true })).toBe(false);
    expect(fireEvent.keyDown(ui.input(), { key: 'Enter', keyCode: 229 })).toBe(false);
    expect(fireEvent.keyDown(ui.input(), { key: 'Enter', keyCode: 13 })).toBe(true);
  });
});
