import { createVisitorMachine, createVisitorModel, type VisitorPath } from '../machines/visitor-model';
import type { FakeBehaviour, FakeProvider, OpenStream, StreamEnd } from '../testing/fake-provider';
import {
  browserPaths,
  eventKinds,
  getModelCoverage,
  getVisitorPaths,
  type PathRun,
  type PayloadPool,
  payloadDrawer,
  payloadDraws,
  planPayloads,
} from '../testing/visitor-paths';
import {
  type ChatPage,
  ERROR,
  expect,
  expectedPayload,
  NO_CONTENT,
  PLACEHOLDER,
  type ShownMessage,
  test,
} from './fixtures';

// What the model's events use, in turn: leading and trailing spaces, markup, several scripts and emoji.
const TEXTS = ['Hello there', '  spaced out  ', '<b>bold</b> & <script>alert(1)</script>', 'Grüße 👋🏽 مرحبا 你好'];
const PIECES = ['Once', ' upon', ' a time 🤖', ' <b>there</b>'];
// One payload of each other kind: the paths take each kind once, and a path run again only for another payload of a
// kind cost a page of its own (12 runs of 25). The other payloads are checked in the browser, in both modes, by the
// fault matrix (HTTP 401, 429 and 500, invalid JSON, every kind of empty reply or stream, a stream that drops or sends
// an error event: fault-matrix.spec.ts) and by input-edge-cases.spec.ts (blanks of spaces, tabs and no-break spaces;
// markup shown as text).
const BLANKS = [' \t\u00a0 '];
const REPLIES = [' <i>markup</i> in a reply 🤖 '];
const EMPTY_REPLIES: FakeBehaviour[] = [{ content: null }];
// No dropped connection here: Chromium may send such a request again by itself (see the fault matrix).
const FAILURES: FakeBehaviour[] = [{ status: 500 }];
// A streaming build's empty reply: a stream of only white space.
const EMPTY_STREAMS: FakeBehaviour[] = [{ stream: [' ', '\n'] }];
const STREAM_BREAKS = ['drop'] as const;

type Step = VisitorPath['steps'][number];

/** The pools of payloads, by build. */
function poolsFor(streaming: boolean): Record<PayloadPool, number> {
  return {
    texts: TEXTS.length,
    blanks: BLANKS.length,
    replies: REPLIES.length,
    empty: (streaming ? EMPTY_STREAMS : EMPTY_REPLIES).length,
    failures: FAILURES.length,
    pieces: PIECES.length,
    breaks: STREAM_BREAKS.length,
  };
}

/**
 * Drives the built app in Chromium along one generated path of the visitor model (the same model the component
 * tests run). The provider holds every request until the path says how it answers, so the pending screen can be
 * checked for as long as needed; a streamed reply is then written piece by piece. The driver keeps the transcript
 * the visitor should see, and every state checks the whole screen against it, and the provider's requests against
 * the messages sent and asked for again.
 */
async function runPath(
  { path, ...run }: PathRun,
  pathIndex: number,
  chat: ChatPage,
  fake: FakeProvider,
  streaming: boolean,
) {
  // Replies show as Markdown from the first: whether the renderer had arrived yet is not what a path is about.
  await chat.markdownLoaded();
  fake.respondWith({ hold: true });
  const payloads = payloadDrawer({ path, ...run });
  const transcript: ShownMessage[] = [];
  const asked: string[] = [];
  let box = '';
  let sent = '';
  let partial = '';
  let lastReply = '';
  let retryable = false;
  let failures = 0;
  let lastEvent = '';
  let stream: OpenStream | undefined;
  // Alternate the ways of doing one thing (Enter and Send, Stop and Escape, click and keyboard on Retry), starting
  // differently on alternate paths.
  let submits = pathIndex;
  let stops = pathIndex;
  let retries = pathIndex;

  /** The conversation, the requests the provider got, and the errors logged all match what happened so far. */
  const expectHistory = async (streamed: ShownMessage[] = []) => {
    await chat.expectTranscript([...transcript, ...streamed]);
    expect(
      fake.requests.map((request) => request.body),
      'what the provider received',
    ).toEqual(asked.map((text) => expectedPayload(text, streaming ? 'proxy' : 'direct')));
    await expect.poll(() => chat.chatErrors().length, { message: 'errors logged for failed calls' }).toBe(failures);
  };

  const pendingAtProvider = () => fake.heldCount + (stream && !stream.closed ? 1 : 0);

  const expectIdle = async (value: string) => {
    await chat.expectIdle();
    await expect(chat.input).toHaveValue(value);
    await expect(chat.stopButton).toHaveCount(0);
    await expect(chat.retryButton).toHaveCount(retryable ? 1 : 0);
    await expect(chat.typingIndicator).toHaveCount(0);
    await expect(chat.log).toHaveAttribute('aria-busy', 'false');
    await expect.poll(pendingAtProvider, { message: 'requests pending at the provider' }).toBe(0);
  };

  const expectSettled = async (last: string | null) => {
    await expectHistory();
    await expectIdle('');
    if (last !== null) expect(transcript.at(-1)).toEqual({ sender: 'bot', text: last });
    // Right after a reply (or a stop) the box has the focus again, so the visitor can type on.
    if (lastEvent.startsWith('reply.')) await expect(chat.input).toBeFocused();
  };

  const expectPending = async (streamed: ShownMessage[]) => {
    await expect.poll(pendingAtProvider, { message: 'requests pending at the provider' }).toBe(1);
    await expectHistory(streamed);
    // Empty after a send; a new message typed before a Retry waits there.
    await chat.expectSending(box);
    await expect(chat.stopButton).toBeEnabled();
    await expect(chat.retryButton).toHaveCount(0);
  };

  const expectWaiting = async () => {
    await expectPending([]);
    expect(transcript.at(-1)).toEqual({ sender: 'user', text: sent });
    await expect(chat.typingIndicator).toBeVisible();
    await expect(chat.log).toHaveAttribute('aria-busy', 'false');
  };

  /** Ends the pending reply as `behaviour` says (a held request) or as `ending` says (a stream already open). */
  const settle = async (outcome: { behaviour: FakeBehaviour } | { ending: StreamEnd }, shown: ShownMessage[]) => {
    if ('behaviour' in outcome) fake.release(outcome.behaviour);
    else stream?.end(outcome.ending);
    transcript.push(...shown);
    partial = '';
    await expect(chat.bubbles()).toHaveCount(transcript.length);
  };

  await path.test({
    states: {
      empty: async () => {
        await expectHistory();
        await expectIdle('');
        await expect(chat.input).toHaveAttribute('placeholder', PLACEHOLDER);
        expect(transcript).toEqual([]);
      },
      blank: async () => {
        await expectHistory();
        await expectIdle(box);
        expect(box.trim()).toBe('');
      },
      typed: async () => {
        await expectHistory();
        await expectIdle(box);
      },
      waiting: async () => {
        await expectWaiting();
        expect(box).toBe('');
      },
      retrying: async () => {
        await expectWaiting();
        expect(box.trim()).not.toBe('');
      },
      redrafted: async () => {
        await expectHistory();
        await expectIdle(box);
        await expect(chat.retryButton).toBeEnabled();
      },
      slow: async () => {
        await expectWaiting();
        await expect(chat.slowHint).toContainText('Stop');
      },
      streaming: async () => {
        // A reply is Markdown: its paragraph does not keep the spaces around it, while streaming in or after.
        await expectPending([{ sender: 'bot', text: partial.trim() }]);
        await expect(chat.typingIndicator).toHaveCount(0);
        await expect(chat.log).toHaveAttribute('aria-busy', 'true');
      },
      answered: () => expectSettled(lastReply),
      unanswered: () => expectSettled(NO_CONTENT),
      failed: () => expectSettled(ERROR),
      stopped: async () => {
        await expectSettled(null);
        await expect(chat.stoppedNotes.last()).toBeVisible();
        // Stop reaches the provider: its request is closed, so it stops generating (and billing).
        await expect
          .poll(() => fake.requests.at(-1)?.aborted, { message: 'the provider saw the request end' })
          .toBe(true);
      },
    },
    events: {
      'text.type': async () => {
        box = payloads.next('texts', TEXTS);
        await chat.type(box);
        lastEvent = 'text.type';
      },
      'whitespace.type': async () => {
        box = payloads.next('blanks', BLANKS);
        await chat.type(box);
        lastEvent = 'whitespace.type';
      },
      'message.submit': async ({ state }: Step) => {
        if (submits++ % 2 === 0) await chat.input.press('Enter');
        else await chat.sendButton.click();
        // The model says whether this submit sends; if it does not, the next state's checks prove nothing was sent.
        if (state.value === 'waiting') {
          sent = box;
          transcript.push({ sender: 'user', text: sent });
          asked.push(sent);
          box = '';
          retryable = false;
          stream = undefined;
        }
        lastEvent = 'message.submit';
      },
      'reply.slow': async () => {
        await expect(chat.slowHint).toBeVisible({ timeout: 10_000 });
        lastEvent = 'reply.slow';
      },
      'reply.piece': async () => {
        if (!stream) {
          fake.release({ openStream: true });
          await expect.poll(() => fake.streams.length, { message: 'streams opened' }).toBeGreaterThan(0);
          stream = fake.streams.at(-1);
        }
        const piece = payloads.next('pieces', PIECES);
        stream?.piece(piece);
        partial += piece;
        lastEvent = 'reply.piece';
      },
      'reply.content': async () => {
        if (stream) {
          lastReply = partial.trim();
          await settle({ ending: 'done' }, [{ sender: 'bot', text: lastReply }]);
        } else {
          const reply = payloads.next('replies', REPLIES);
          // A reply is Markdown: its paragraph does not keep the spaces around it.
          lastReply = reply.trim();
          const behaviour = streaming ? { stream: [reply] } : { content: reply };
          await settle({ behaviour }, [{ sender: 'bot', text: lastReply }]);
        }
        lastEvent = 'reply.content';
      },
      'reply.empty': async () => {
        await settle({ behaviour: payloads.next('empty', streaming ? EMPTY_STREAMS : EMPTY_REPLIES) }, [
          { sender: 'bot', text: NO_CONTENT },
        ]);
        lastEvent = 'reply.empty';
      },
      'reply.fail': async () => {
        failures++;
        const kept: ShownMessage[] = partial ? [{ sender: 'bot', text: partial.trim() }] : [];
        const outcome = stream
          ? { ending: payloads.next('breaks', STREAM_BREAKS) }
          : { behaviour: payloads.next('failures', FAILURES) };
        await settle(outcome, [...kept, { sender: 'bot', text: ERROR }]);
        retryable = true;
        lastEvent = 'reply.fail';
      },
      'reply.stop': async () => {
        if (stops++ % 2 === 0) await chat.stopButton.click();
        else await chat.page.keyboard.press('Escape');
        if (partial) transcript.push({ sender: 'bot', text: partial.trim() });
        partial = '';
        retryable = true;
        lastEvent = 'reply.stop';
      },
      'reply.retry': async () => {
        if (retries++ % 2 === 0) {
          await chat.retryButton.click();
        } else {
          await chat.retryButton.focus();
          await chat.page.keyboard.press('Enter');
        }
        // The failed attempt's messages give way; the visitor's message is not repeated.
        transcript.splice(transcript.findLastIndex((message) => message.sender === 'user') + 1);
        asked.push(sent);
        retryable = false;
        stream = undefined;
        lastEvent = 'reply.retry';
      },
    },
  });
  // The run took the payloads the plan counted on, so the plan's check that every payload runs holds for the runs.
  expect(payloads.drawn).toEqual(payloadDraws(path));
}

// A proxy-mode build streams by default; a direct-mode build asks for whole replies (the specification's request).
for (const { streaming, mode, states, transitions } of [
  { streaming: true, mode: 'proxy', states: 12, transitions: 46 },
  { streaming: false, mode: 'direct', states: 11, transitions: 40 },
] as const) {
  test.describe(`the visitor model, driven in the browser (${mode} mode, streaming: ${streaming})`, () => {
    test.skip(({ mode: running }) => running !== mode, `this build is the ${mode}-mode one`);
    const model = createVisitorModel({ streaming });
    // Every transition is walked by the unit model (src/app.test.tsx, the same paths in jsdom); here, the fewest paths
    // that reach every state and take every kind of event, each in the real browser against the real server.
    const all = getVisitorPaths(model);
    const paths = browserPaths(all);
    const plan = planPayloads(paths, poolsFor(streaming));

    test('the paths reach every state and take every kind of event of the visitor model', () => {
      const coverage = getModelCoverage(paths, createVisitorMachine({ streaming }));
      expect(coverage.states).toEqual({ total: states, uncovered: [] });
      expect(coverage.transitions.total).toBe(transitions);
      expect(eventKinds(paths)).toEqual(eventKinds(all));
    });

    test('the runs use every payload', () => {
      const none = { texts: [], blanks: [], replies: [], empty: [], failures: [], pieces: [], breaks: [] };
      // Without streaming, no piece arrives and no stream breaks.
      expect(plan.unused).toEqual(streaming ? none : { ...none, pieces: [0, 1, 2, 3], breaks: [0] });
      // And each path runs once: none again only for payloads.
      expect(plan.runs).toHaveLength(paths.length);
    });

    plan.runs.forEach((run, index) => {
      test(run.name, async ({ chat, fake }) => {
        await runPath(run, index, chat, fake, streaming);
      });
    });
  });
}
