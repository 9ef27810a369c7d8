import { describeVisitorPath, getModelCoverage, getVisitorPaths, type VisitorPath } from '../machines/visitor-model';
import type { FakeBehaviour, FakeProvider } from '../testing/fake-provider';
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
const BLANKS = ['   ', ' \t\u00a0 '];
const REPLIES = ['Hi! How can I help?', ' <i>markup</i> in a reply 🤖 '];
const EMPTY_REPLIES: FakeBehaviour[] = [{ content: null }, { content: '' }, { json: { choices: [] } }];
// No dropped connection here: Chromium may send such a request again by itself (see the fault matrix).
const FAILURES: FakeBehaviour[] = [{ status: 500 }, { status: 429 }, { raw: 'not json' }, { status: 401 }];

type Step = VisitorPath['steps'][number];

/**
 * Drives the built app in Chromium along one generated path of the visitor model (the same model the component
 * tests run). The provider holds every request until the path says how it answers, so the sending screen can be
 * checked for as long as needed. The driver keeps the transcript the visitor should see, and every state checks the
 * whole screen against it, and the provider's requests against the messages sent.
 */
async function runPath(path: VisitorPath, pathIndex: number, chat: ChatPage, fake: FakeProvider) {
  fake.respondWith({ hold: true });
  const transcript: ShownMessage[] = [];
  let box = '';
  let failures = 0;
  let lastEvent = '';
  // Alternate Enter and the Send button, starting differently on alternate paths.
  let submits = pathIndex;
  const counters = { texts: 0, blanks: 0, replies: 0, empty: 0, failures: 0 };
  const next = <T>(list: T[], key: keyof typeof counters) => list[counters[key]++ % list.length];

  /** The conversation, the requests the provider got, and the errors logged all match what happened so far. */
  const expectHistory = async () => {
    await chat.expectTranscript(transcript);
    const sent = transcript.filter((message) => message.sender === 'user').map((message) => message.text);
    expect(
      fake.requests.map((request) => request.body),
      'what the provider received',
    ).toEqual(sent.map(expectedPayload));
    await expect.poll(() => chat.chatErrors().length, { message: 'errors logged for failed calls' }).toBe(failures);
  };

  const expectIdle = async (value: string) => {
    await chat.expectIdle();
    await expect(chat.input).toHaveValue(value);
    expect(fake.heldCount, 'requests pending').toBe(0);
  };

  const expectReplied = async (last: string) => {
    await expectHistory();
    await expectIdle('');
    expect(transcript.at(-1)).toEqual({ sender: 'bot', text: last });
    // Right after a reply the box has the focus again, so the visitor can type on.
    if (lastEvent.startsWith('reply.')) await expect(chat.input).toBeFocused();
  };

  const answer = async (behaviour: FakeBehaviour, shown: string) => {
    fake.release(behaviour);
    transcript.push({ sender: 'bot', text: shown });
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
      sending: async () => {
        await expect.poll(() => fake.heldCount, { message: 'requests held at the provider' }).toBe(1);
        await expectHistory();
        await chat.expectSending();
        expect(transcript.at(-1)?.sender).toBe('user');
      },
      answered: () => expectReplied(REPLIES[(counters.replies - 1) % REPLIES.length]),
      unanswered: () => expectReplied(NO_CONTENT),
      failed: () => expectReplied(ERROR),
    },
    events: {
      'text.type': async () => {
        box = next(TEXTS, 'texts');
        await chat.type(box);
        lastEvent = 'text.type';
      },
      'whitespace.type': async () => {
        box = next(BLANKS, 'blanks');
        await chat.type(box);
        lastEvent = 'whitespace.type';
      },
      'message.submit': async ({ state }: Step) => {
        if (submits++ % 2 === 0) await chat.input.press('Enter');
        else await chat.sendButton.click();
        // The model says whether this submit sends; if it does not, the next state's checks prove nothing was sent.
        if (state.matches('sending')) {
          transcript.push({ sender: 'user', text: box });
          box = '';
        }
        lastEvent = 'message.submit';
      },
      'reply.content': async () => {
        const reply = next(REPLIES, 'replies');
        await answer({ content: reply }, reply);
        lastEvent = 'reply.content';
      },
      'reply.empty': async () => {
        await answer(next(EMPTY_REPLIES, 'empty'), NO_CONTENT);
        lastEvent = 'reply.empty';
      },
      'reply.fail': async () => {
        failures++;
        await answer(next(FAILURES, 'failures'), ERROR);
        lastEvent = 'reply.fail';
      },
    },
  });
}

test.describe('the visitor model, driven in the browser', () => {
  const paths = getVisitorPaths();

  test('the paths cover every state and every transition of the visitor model', () => {
    expect(getModelCoverage(paths)).toEqual({
      states: { total: 7, uncovered: [] },
      transitions: { total: 21, uncovered: [] },
    });
  });

  paths.forEach((path, index) => {
    test(describeVisitorPath(path), async ({ chat, fake }) => {
      await runPath(path, index, chat, fake);
    });
  });
});
