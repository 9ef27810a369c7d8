import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_PAGE_SETTINGS, type PageSettings } from '../contract/page-settings';
import {
  type ChatMessage,
  chatMachine,
  type FetchReplyOutput,
  ReplyLimitedError,
  type Sender,
} from '../machines/chat-machine';
import { createVisitorMachine, createVisitorModel } from '../machines/visitor-model';
import { chatScreen } from '../testing/chat-screen';
import { createControllableFetchReply } from '../testing/controllable-reply';
import {
  describeVisitorPath,
  getModelCoverage,
  getVisitorPaths,
  type PathRun,
  type PayloadPool,
  payloadDrawer,
  payloadDraws,
  planPayloads,
} from '../testing/visitor-paths';
import { App } from './app';
import { loadMarkdown } from './markdown/load-markdown';

// The spec's visible texts, spelled out: the tests check the product, not the constants the code happens to use.
const PLACEHOLDER = 'Your message here';
const SENDING_PLACEHOLDER = 'Sending...';
const NO_CONTENT = 'No response received';
const ERROR = 'Error: Unable to get response';

/** The wait after a refusal by a limit: held back by `heldLimitClock` until a test lets it pass. */
const HELD_LIMIT_MS = 86_400_000;

/** Delays short enough for tests to wait for, long enough for a state to be looked at first. */
const TEST_DELAYS = { slowHint: 150, replyTimeout: 60_000, limitWait: HELD_LIMIT_MS };

/** The machine's clock: the real timers, but the limit's wait passes only when `pass()` is called. */
function heldLimitClock() {
  const held = new Map<number, () => void>();
  let nextId = -1;
  return {
    setTimeout(callback: () => void, ms: number) {
      if (ms !== HELD_LIMIT_MS) return setTimeout(callback, ms);
      held.set(nextId, callback);
      return nextId--;
    },
    clearTimeout(id: unknown) {
      if (!held.delete(id as number)) clearTimeout(id as ReturnType<typeof setTimeout>);
    },
    pass() {
      const callbacks = [...held.values()];
      held.clear();
      for (const callback of callbacks) callback();
    },
  };
}

function renderChat(delays: Partial<typeof TEST_DELAYS> = {}, settings: Partial<PageSettings> = {}) {
  const fake = createControllableFetchReply();
  const clock = heldLimitClock();
  // No delay between keystrokes: nothing in the app depends on typing speed, and it keeps the suite fast.
  const user = userEvent.setup({ delay: null });
  render(
    <App
      logic={chatMachine.provide({ actors: { fetchReply: fake.logic }, delays: { ...TEST_DELAYS, ...delays } })}
      settings={{ ...DEFAULT_PAGE_SETTINGS, ...settings }}
      clock={clock}
    />,
  );
  return { user, fake, clock };
}

const ui = {
  ...chatScreen,
  slowHint: () => screen.queryByText(/^Still working on a reply/),
  stoppedNote: () => screen.queryAllByText('Reply stopped'),
  starters: () => screen.queryByRole('group', { name: 'Suggested questions' }),
  limitHint: () => ui.log().querySelector('[data-limit-hint]'),
};

/** The bubbles in the conversation, in order, with their text exactly as rendered. */
function shownMessages(): ChatMessage[] {
  return Array.from(ui.log().querySelectorAll<HTMLElement>('[data-sender]'), (bubble) => ({
    text: bubble.textContent ?? '',
    sender: bubble.dataset.sender as Sender,
  }));
}

/** What the requests were for, in order. */
const requestedTexts = (fake: ReturnType<typeof createControllableFetchReply>) =>
  fake.calls.map((call) => call.input.text);

function expectComposerIdle() {
  expect(ui.input()).toBeEnabled();
  expect(ui.input()).toHaveAttribute('placeholder', PLACEHOLDER);
  expect(ui.send()).toBeEnabled();
  expect(ui.stop()).toBeNull();
}

// What the model's `text.type`, `whitespace.type` and replies use, in turn. No `{` or `[`: user-event reads those
// as key names.
const TEXTS = ['Hello there', '  spaced out  ', '<b>bold</b> & <script>alert(1)</script>', 'Grüße 👋 naïve café'];
const BLANKS = ['   ', ' \u00a0 '];
const REPLIES = ['Hi! How can I help?', ' <i>markup</i> in a reply 🤖 '];
const PIECES = ['Once', ' upon', ' a time 🤖', ' <b>there</b>'];
const EMPTY_REPLIES: FetchReplyOutput[] = [null, ''];
// The failures the fake reply actor rejects with: before any piece, and once pieces have arrived.
const FAILURES = ['provider failure', 'rate limited'];
const STREAM_BREAKS = ['connection lost mid-stream', 'error event mid-stream'];
/** The refusals the fake reply actor rejects with for `reply.limit`, in turn, and the hint each shows. */
const LIMITS = [
  { error: () => new ReplyLimitedError('rate', 42), hint: 'Too many messages in a short time.', when: 'in 42 seconds' },
  {
    error: () => new ReplyLimitedError('daily', 5_400),
    hint: 'The assistant has reached its limit for today.',
    when: 'in 2 hours',
  },
];
/** The site's starter questions, for the runs of a site that configures them. */
const STARTERS = ['What do you sell?', 'Where is your shop? <b>really</b>'];
const POOLS: Record<PayloadPool, number> = {
  texts: TEXTS.length,
  blanks: BLANKS.length,
  replies: REPLIES.length,
  empty: EMPTY_REPLIES.length,
  failures: FAILURES.length,
  pieces: PIECES.length,
  breaks: STREAM_BREAKS.length,
};

/**
 * Runs one generated path against the rendered app. The model says where the visitor is; this keeps the transcript
 * the visitor should see, and checks the whole screen in every state.
 */
async function runPath(
  { path, ...run }: PathRun,
  pathIndex: number,
  starters: readonly string[] = [],
  limitMessage?: string,
  votes = false,
) {
  // Replies show as Markdown from the first: whether the renderer had arrived yet is not what a path is about.
  await loadMarkdown();
  const { user, fake, clock } = renderChat({}, { starters: [...starters], limitMessage });
  const payloads = payloadDrawer({ path, ...run });
  // Every console.error must be one of the failures the path caused: React's warnings fail the test too.
  const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const transcript: ChatMessage[] = [];
  const requests: string[] = [];
  const failures: Error[] = [];
  let box = '';
  let sent = '';
  let partial = '';
  let lastReply = '';
  let retryable = false;
  let limit: (typeof LIMITS)[number] | undefined;
  let stoppedLast = false;
  let lastEvent = '';
  // Alternate Enter and the Send button (Stop and Escape, a click and a keypress on Retry), starting differently on
  // alternate paths, so that every way is taken.
  let submits = pathIndex;
  let stops = pathIndex;
  let retries = pathIndex;
  let limits = pathIndex;
  // With votes, each request's reply comes with the server's token (given with its first piece, or with the whole
  // reply), and the page posts each vote as that token and the rating alone.
  const posted = votes
    ? vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response(null, { status: 204 }))
    : undefined;
  const votesSent: { reply: string; rating: string }[] = [];
  let token: string | undefined;
  let vote: 'up' | 'down' | undefined;
  const giveToken = async () => {
    if (!votes || token) return;
    token = `token-${fake.calls.length}`;
    const given = token;
    await act(async () => fake.latest().sources([], { token: given }));
  };
  const pressVote = async (rating: 'up' | 'down') => {
    const name = rating === 'up' ? 'Helpful' : 'Not helpful';
    // Under the last reply: earlier replies keep their own buttons.
    await user.click(screen.getAllByRole('button', { name }).at(-1) as HTMLElement);
    votesSent.push({ reply: token as string, rating });
    vote = rating;
  };
  const expectVote = () => {
    const pressed = (name: string) => screen.getAllByRole('button', { name }).at(-1);
    expect(pressed('Helpful')).toHaveAttribute('aria-pressed', String(vote === 'up'));
    expect(pressed('Not helpful')).toHaveAttribute('aria-pressed', String(vote === 'down'));
    // The five reasons are offered after Not helpful only.
    expect(screen.queryAllByRole('group', { name: 'What was wrong?' })).toHaveLength(vote === 'down' ? 1 : 0);
    const bodies = (posted?.mock.calls ?? []).map(([, init]) => JSON.parse(String((init as RequestInit).body)));
    // Exactly the token and the rating: no word of the conversation.
    expect(bodies).toEqual(votesSent);
  };

  const replace = async (text: string) => {
    // Typed over the whole box, as a visitor who selects it all first.
    const input = ui.input() as HTMLInputElement;
    await user.type(input, text, { initialSelectionStart: 0, initialSelectionEnd: input.value.length });
    box = text;
  };

  const expectConversation = (streamed: ChatMessage[] = []) => {
    expect(shownMessages()).toEqual([...transcript, ...streamed]);
    expect(requestedTexts(fake)).toEqual(requests);
    // The starters are offered until the visitor's first message, and never come back.
    const offered = starters.length > 0 && requests.length === 0 ? starters : [];
    expect(
      within(ui.starters() ?? document.createElement('div'))
        .queryAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(offered);
    expect(consoleError.mock.calls).toEqual(failures.map((failure) => expect.arrayContaining([failure])));
  };

  const expectIdle = () => {
    expectConversation();
    expectComposerIdle();
    expect(ui.typing()).toBeNull();
    expect(ui.log()).toHaveAttribute('aria-busy', 'false');
    if (retryable) expect(ui.retry()).toBeEnabled();
    else if (limit) expect(ui.retry()).toBeDisabled();
    else expect(ui.retry()).toBeNull();
    if (limit)
      expect(ui.limitHint()).toHaveTextContent(`${limitMessage ?? limit.hint} You can try again ${limit.when}.`);
    else expect(ui.limitHint()).toBeNull();
  };

  const expectReplied = (last: string | null) => {
    expectIdle();
    expect(ui.input()).toHaveValue('');
    if (last !== null) expect(shownMessages().at(-1)).toEqual({ text: last, sender: 'bot' });
    // Right after a reply the box has focus again, so the visitor can type on.
    if (lastEvent.startsWith('reply.')) expect(ui.input()).toHaveFocus();
    // A stopped request is abandoned (the real actor's fetch is aborted); the others ended by themselves.
    expect(fake.latest().signal.aborted).toBe(stoppedLast);
  };

  const expectPending = (streamed: ChatMessage[]) => {
    expectConversation(streamed);
    expect(ui.input()).toBeDisabled();
    // Empty after a send; a new message typed before a Retry waits there.
    expect(ui.input()).toHaveValue(box);
    expect(ui.input()).toHaveAttribute('placeholder', SENDING_PLACEHOLDER);
    expect(ui.send()).toBeDisabled();
    expect(ui.stop()).toBeEnabled();
    expect(ui.retry()).toBeNull();
    expect(fake.latest().input.text).toBe(sent);
    expect(fake.latest().signal.aborted).toBe(false);
  };

  const expectWaiting = () => {
    expectPending([]);
    expect(shownMessages().at(-1)).toEqual({ text: sent, sender: 'user' });
    expect(ui.typing()).toBeInTheDocument();
    expect(ui.log()).toHaveAttribute('aria-busy', 'false');
  };

  const expectStopped = () => {
    expectReplied(null);
    // The note is on the last reply, which keeps whatever had arrived, and Retry follows that reply.
    const lastGroup = ui.retry()?.parentElement?.previousElementSibling;
    expect(lastGroup?.lastElementChild).toContainElement(ui.stoppedNote().at(-1) ?? null);
    expect(ui.log().lastElementChild).toContainElement(ui.retry());
  };

  const settle = async (outcome: () => void, shown: ChatMessage[], nowRetryable: boolean) => {
    await act(async () => outcome());
    stoppedLast = false;
    transcript.push(...shown);
    partial = '';
    retryable = nowRetryable;
    limit = undefined;
  };

  await path.test({
    states: {
      empty: () => {
        expectIdle();
        expect(ui.input()).toHaveValue('');
        expect(shownMessages()).toEqual([]);
      },
      blank: () => {
        expectIdle();
        expect(ui.input()).toHaveValue(box);
        expect(box.trim()).toBe('');
      },
      typed: () => {
        expectIdle();
        expect(ui.input()).toHaveValue(box);
      },
      waiting: () => {
        expectWaiting();
        expect(box).toBe('');
      },
      retrying: () => {
        expectWaiting();
        expect(box.trim()).not.toBe('');
      },
      redrafted: () => {
        expectIdle();
        expect(ui.input()).toHaveValue(box);
        expect(ui.retry()).toBeEnabled();
      },
      slow: () => {
        expectWaiting();
        expect(ui.slowHint()).toHaveTextContent('Stop');
      },
      streaming: () => {
        expectPending([{ text: partial.trim(), sender: 'bot' }]);
        expect(ui.typing()).toBeNull();
        expect(ui.slowHint()).toBeNull();
        expect(ui.log()).toHaveAttribute('aria-busy', 'true');
      },
      answered: () => expectReplied(lastReply),
      unanswered: () => expectReplied(NO_CONTENT),
      failed: () => {
        expectReplied(ERROR);
        expect(consoleError.mock.lastCall).toContain(failures.at(-1));
      },
      limited: () => {
        expectReplied(ERROR);
        expect(consoleError.mock.lastCall).toContain(failures.at(-1));
        // The hint is under the error, and Retry under the hint.
        expect(ui.log().lastElementChild).toContainElement(ui.retry());
        expect(ui.log().lastElementChild).toContainElement(ui.limitHint() as HTMLElement);
      },
      stopped: () => expectStopped(),
      helpful: () => {
        expectReplied(lastReply);
        expectVote();
      },
      unhelpful: () => {
        expectReplied(lastReply);
        expectVote();
      },
      stoppedPartway: () => {
        expectStopped();
        expectVote();
      },
      stoppedVoted: () => {
        expectStopped();
        expectVote();
      },
    },
    events: {
      'text.type': async () => {
        await replace(payloads.next('texts', TEXTS));
        lastEvent = 'text.type';
      },
      'whitespace.type': async () => {
        await replace(payloads.next('blanks', BLANKS));
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
        if (state.value === 'waiting') {
          token = undefined;
          vote = undefined;
          sent = box;
          transcript.push({ text: sent, sender: 'user' });
          requests.push(sent);
          box = '';
          retryable = false;
        }
        lastEvent = 'message.submit';
      },
      'starter.choose': async () => {
        const starter = starters[pathIndex % starters.length];
        const button = within(ui.starters() as HTMLElement).getByRole('button', { name: starter });
        if (submits++ % 2 === 0) {
          await user.click(button);
        } else {
          act(() => button.focus());
          await user.keyboard('{Enter}');
        }
        sent = starter;
        token = undefined;
        vote = undefined;
        transcript.push({ text: sent, sender: 'user' });
        requests.push(sent);
        retryable = false;
        lastEvent = 'starter.choose';
      },
      'reply.slow': async () => {
        await waitFor(() => expect(ui.slowHint()).toBeInTheDocument());
        lastEvent = 'reply.slow';
      },
      'reply.piece': async () => {
        const piece = payloads.next('pieces', PIECES);
        await giveToken();
        await act(async () => fake.latest().delta(piece));
        partial += piece;
        lastEvent = 'reply.piece';
      },
      'reply.content': async () => {
        // After pieces, the actor resolves with all of them joined, as the real one does at the end of a stream.
        const reply = partial || payloads.next('replies', REPLIES);
        // A reply is Markdown: its paragraph does not keep the spaces around it (nor does a reply streaming in).
        lastReply = reply.trim();
        await giveToken();
        await settle(() => fake.latest().resolve(reply), [{ text: lastReply, sender: 'bot' }], false);
        lastEvent = 'reply.content';
      },
      'reply.empty': async () => {
        const reply = payloads.next('empty', EMPTY_REPLIES);
        await settle(() => fake.latest().resolve(reply), [{ text: NO_CONTENT, sender: 'bot' }], false);
        lastEvent = 'reply.empty';
      },
      'reply.fail': async () => {
        const failure = new Error(payloads.next(partial ? 'breaks' : 'failures', partial ? STREAM_BREAKS : FAILURES));
        failures.push(failure);
        const kept: ChatMessage[] = partial ? [{ text: partial.trim(), sender: 'bot' }] : [];
        await settle(() => fake.latest().reject(failure), [...kept, { text: ERROR, sender: 'bot' }], true);
        lastEvent = 'reply.fail';
      },
      'reply.limit': async () => {
        const refusal = LIMITS[limits++ % LIMITS.length];
        const failure = refusal.error();
        failures.push(failure);
        await settle(() => fake.latest().reject(failure), [{ text: ERROR, sender: 'bot' }], false);
        limit = refusal;
        lastEvent = 'reply.limit';
      },
      'limit.pass': async () => {
        await act(async () => clock.pass());
        limit = undefined;
        retryable = true;
        lastEvent = 'limit.pass';
      },
      'reply.stop': async () => {
        const kept: ChatMessage[] = partial ? [{ text: partial.trim(), sender: 'bot' }] : [];
        if (stops++ % 2 === 0) await user.click(ui.stop() as HTMLElement);
        else await user.keyboard('{Escape}');
        transcript.push(...kept);
        partial = '';
        retryable = true;
        stoppedLast = true;
        lastEvent = 'reply.stop';
      },
      'vote.up': async () => {
        await pressVote('up');
        lastEvent = 'vote.up';
      },
      'vote.down': async () => {
        await pressVote('down');
        lastEvent = 'vote.down';
      },
      'reply.retry': async () => {
        if (retries++ % 2 === 0) {
          await user.click(ui.retry() as HTMLElement);
        } else {
          act(() => (ui.retry() as HTMLElement).focus());
          await user.keyboard('{Enter}');
        }
        token = undefined;
        vote = undefined;
        // The failed attempt's messages give way; the visitor's message is not repeated.
        transcript.splice(transcript.findLastIndex((message) => message.sender === 'user') + 1);
        requests.push(sent);
        retryable = false;
        lastEvent = 'reply.retry';
      },
    },
  });
  // The run took the payloads the plan counted on, so the plan's check that every payload runs holds for the runs.
  expect(payloads.drawn).toEqual(payloadDraws(path));
}

describe.each([
  { streaming: true, starters: false, limits: true, votes: true, states: 17, transitions: 70 },
  { streaming: false, starters: false, limits: true, states: 12, transitions: 44, limitMessage: 'We rest a while.' },
  { streaming: true, starters: true, limits: false, states: 12, transitions: 47 },
])(
  'the chat as a visitor uses it (model-based, streaming: $streaming, starters: $starters, limits: $limits, votes: $votes)',
  ({ streaming, starters, limits, votes = false, states, transitions, limitMessage }) => {
    const model = createVisitorModel({ streaming, starters, limits, votes });
    const machine = createVisitorMachine({ streaming, starters, limits, votes });
    const paths = getVisitorPaths(model);
    const plan = planPayloads(paths, POOLS);

    it('runs paths that cover every state and every transition of the visitor model', () => {
      expect(getModelCoverage(paths, machine)).toEqual({
        states: { total: states, uncovered: [] },
        transitions: { total: transitions, uncovered: [] },
      });
    });

    it('has a coverage check that notices a path left out', () => {
      const blankSubmit = paths.find(
        (path) => describeVisitorPath(path) === 'empty → whitespace.type → blank → message.submit → blank',
      );
      expect(blankSubmit).toBeDefined();
      expect(
        getModelCoverage(
          paths.filter((path) => path !== blankSubmit),
          machine,
        ),
      ).toEqual({
        states: { total: states, uncovered: [] },
        transitions: { total: transitions, uncovered: ['blank --message.submit--> blank'] },
      });
      expect(getModelCoverage([], machine).states.uncovered).toHaveLength(states);
    });

    it('uses every payload on some run', () => {
      const none = { texts: [], blanks: [], replies: [], empty: [], failures: [], pieces: [], breaks: [] };
      // Without streaming, no piece arrives and no stream breaks.
      expect(plan.unused).toEqual(streaming ? none : { ...none, pieces: [0, 1, 2, 3], breaks: [0, 1] });
    });

    plan.runs.forEach((run, index) => {
      it(run.name, () => runPath(run, index, starters ? STARTERS : [], limitMessage, votes));
    });
  },
);

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
    expect(requestedTexts(fake)).toEqual(['Sent by click']);
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

    expect(requestedTexts(fake)).toEqual(['first', 'second']);
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
