import { FAKE_REPLY, type FakeBehaviour, type FakeProvider } from '../testing/fake-provider';
import type { ProductionServer } from '../testing/production-app';
import { allowServerStart, startAppServer } from './app-server';
import { HELD_TIMEOUT_MS, type Mode, SHORT_SERVER_TIMEOUT_MS } from './e2e-env';
import { type ChatPage, ERROR, expect, expectedPayload, NO_CONTENT, streams, test } from './fixtures';

interface Fault {
  name: string;
  behaviour: FakeBehaviour;
  /**
   * The bot message the visitor sees, by mode when the modes differ. The spec's error message always comes with
   * the error logged to the console; the other messages never do.
   */
  shows: string;
  /**
   * Chromium itself sends a request once more when a reused keep-alive connection closes before any byte of an
   * answer (it cannot tell that from a connection the server had idly closed), so a page talking to the provider
   * directly may see a dropped connection twice. The app never retries on its own.
   */
  browserMayResend?: true;
  /** Only where replies are asked for as a stream (`true`), or only where they are not (`false`). */
  streamed?: boolean;
  /** The text that had streamed in before the failure: it stays, as its own message before the error. */
  kept?: string;
  /**
   * A slow answer: the provider holds the request until the test has seen the page in "Sending...", then answers
   * with `behaviour`.
   */
  held?: true;
}

/**
 * How long the visitor waits at most for a fault to end: far less than the deadline the suite's builds and servers
 * run under (`HELD_TIMEOUT_MS`), so that a fault the page waits out can only have been ended by the deadline under
 * test, and far more than a busy machine needs.
 */
const FAULT_DEADLINE_MS = 15_000;

/** Every way the provider can answer, and what the visitor must see. The README's fault matrix is this table. */
const FAULTS: Fault[] = [
  {
    name: 'a reply after a delay',
    behaviour: { content: 'Sorry to keep you waiting.' },
    shows: 'Sorry to keep you waiting.',
    held: true,
  },
  { name: 'null content', behaviour: { content: null }, shows: NO_CONTENT },
  { name: 'empty content', behaviour: { content: '' }, shows: NO_CONTENT },
  {
    name: 'no choices',
    behaviour: { json: { id: 'chatcmpl-fake', object: 'chat.completion', choices: [] } },
    shows: NO_CONTENT,
  },
  { name: 'HTTP 400', behaviour: { status: 400 }, shows: ERROR },
  { name: 'HTTP 401', behaviour: { status: 401 }, shows: ERROR },
  { name: 'HTTP 429', behaviour: { status: 429, retryAfter: '1' }, shows: ERROR },
  { name: 'HTTP 500', behaviour: { status: 500 }, shows: ERROR },
  { name: 'HTTP 503', behaviour: { status: 503, delayMs: 300 }, shows: ERROR },
  { name: 'invalid JSON', behaviour: { raw: '{"choices": [{"message": ' }, shows: ERROR },
  {
    name: 'a dropped connection',
    behaviour: { drop: true, delayMs: 200 },
    shows: ERROR,
    browserMayResend: true,
  },
  { name: 'a provider that never answers', behaviour: { hang: true }, shows: ERROR },
  {
    name: 'a streamed reply (not asked for)',
    behaviour: { stream: ['Hel', 'lo ', 'there'] },
    // Not the JSON completion that was asked for: the page treats it as a failed call.
    shows: ERROR,
    streamed: false,
  },
  // The streaming faults: the reply was asked for as a stream (proxy mode's default).
  {
    name: 'a stream that drops mid-reply',
    behaviour: { stream: ['Half ', 'a reply'], ending: 'drop' },
    kept: 'Half a reply',
    shows: ERROR,
    streamed: true,
  },
  {
    name: 'an error event mid-stream',
    behaviour: { stream: ['Half ', 'a reply'], ending: 'error' },
    kept: 'Half a reply',
    shows: ERROR,
    streamed: true,
  },
  {
    name: 'a stream that stalls mid-reply',
    behaviour: { stream: ['Half ', 'a reply'], ending: 'stall' },
    kept: 'Half a reply',
    shows: ERROR,
    streamed: true,
  },
  { name: 'a stream with no content', behaviour: { stream: [] }, shows: NO_CONTENT, streamed: true },
  { name: 'a stream of only white space', behaviour: { stream: [' ', '\n'] }, shows: NO_CONTENT, streamed: true },
];

/**
 * Opens the chat where a provider that never answers meets a deadline in a test's time. Through the proxy, the
 * server's deadline ends it: the test starts a server of its own with a short `LLM_TIMEOUT_MS`. In direct mode the
 * page's own deadline (baked into the build) ends it: the page runs on Playwright's clock, which the test moves past
 * that deadline once the request is pending, so the real timers fire on the real path. Returns what the test calls
 * once the request is pending, and what it calls at the end.
 */
async function openWithDeadline(chat: ChatPage, mode: Mode, providerBaseURL: string) {
  if (mode === 'proxy') {
    allowServerStart();
    const server: ProductionServer = await startAppServer(mode, providerBaseURL, {
      LLM_TIMEOUT_MS: String(SHORT_SERVER_TIMEOUT_MS),
    });
    await chat.open(server.url);
    return { pass: async () => undefined, close: () => server.close() };
  }
  await chat.page.clock.install();
  await chat.open();
  return {
    pass: async () => {
      // Until the page shows "Sending...", no deadline the page set is known to be running.
      await chat.expectSending();
      await chat.page.clock.fastForward(HELD_TIMEOUT_MS);
    },
    close: async () => undefined,
  };
}

for (const fault of FAULTS) {
  test.describe(() => {
    test.skip(
      ({ mode }) => fault.streamed !== undefined && fault.streamed !== streams(mode),
      fault.streamed ? 'this build asks for whole replies' : 'this build asks for streamed replies',
    );
    test(`${fault.name}: the visitor sees the spec's message, then can chat on`, async ({ chat, fake, mode }) => {
      const { shows } = fault;
      const shown = [
        { sender: 'user' as const, text: `Trigger: ${fault.name}` },
        ...(fault.kept ? [{ sender: 'bot' as const, text: fault.kept }] : []),
        { sender: 'bot' as const, text: shows },
      ];
      const failure = shows === ERROR;
      const stalls = 'hang' in fault.behaviour || ('ending' in fault.behaviour && fault.behaviour.ending === 'stall');
      const deadline = stalls ? await openWithDeadline(chat, mode, fake.baseURL) : undefined;
      try {
        // Every request of this message meets the fault, even one the browser sends again by itself.
        fake.respondWith(fault.held ? { hold: true } : fault.behaviour);

        const started = Date.now();
        await chat.sendWithEnter(`Trigger: ${fault.name}`);
        if (fault.held) {
          await expect.poll(() => fake.heldCount).toBe(1);
          await chat.expectSending();
          fake.release(fault.behaviour);
        }
        if (stalls) {
          await expect.poll(() => fake.requests.length, { message: 'the request reached the provider' }).toBe(1);
          await deadline?.pass();
        }

        await chat.expectTranscript(shown, FAULT_DEADLINE_MS);
        await chat.expectReadyAfterReply();
        expect(Date.now() - started, `back to idle within ${FAULT_DEADLINE_MS} ms`).toBeLessThan(FAULT_DEADLINE_MS);

        expect(chat.chatErrors(), 'console errors for the failed call').toHaveLength(failure ? 1 : 0);
        // One visitor message, one request: nothing retries behind the visitor's back, not even a 429 or a 503.
        const sent = fake.requests.map((request) => request.body);
        const resent = fault.browserMayResend && mode === 'direct' && sent.length === 2 ? 1 : 0;
        expect(sent).toEqual(Array(1 + resent).fill(expectedPayload(`Trigger: ${fault.name}`, mode)));
        if (stalls) {
          // Whoever gave up (the page, or the proxy) closed the request instead of leaving it open.
          await expect
            .poll(() => fake.requests[0].aborted, { message: 'the stalled request was abandoned' })
            .toBe(true);
        }

        fake.respondWith({ content: FAKE_REPLY });
        await chat.sendWithEnter('Are you there now?');
        await chat.expectTranscript([
          ...shown,
          { sender: 'user', text: 'Are you there now?' },
          { sender: 'bot', text: FAKE_REPLY },
        ]);
        await chat.expectReadyAfterReply();
        expect(chat.chatErrors()).toHaveLength(failure ? 1 : 0);
        expect(fake.requests).toHaveLength(2 + resent);
      } finally {
        await deadline?.close();
      }
    });
  });
}

test.describe('double submits send one request', () => {
  // The machine decides, whichever way the page reaches the model: checked once, in proxy mode.
  test.skip(({ mode }) => mode !== 'proxy', 'checked in proxy mode only');
  /** Every submit has happened while the first request is held: the page is sending, then the reply is let in. */
  async function releaseOnce(chat: ChatPage, fake: FakeProvider) {
    await expect.poll(() => fake.heldCount).toBe(1);
    await chat.expectSending();
    fake.release({ content: 'Only once' });
  }

  test('Enter held down', async ({ chat, fake, page }) => {
    fake.queue({ hold: true });
    await chat.type('Hold the key');
    await chat.input.focus();
    // Pressing a key that is already down is an auto-repeat, as when the key is held.
    for (let i = 0; i < 8; i++) await page.keyboard.down('Enter');
    await page.keyboard.up('Enter');
    await releaseOnce(chat, fake);

    await chat.expectTranscript([
      { sender: 'user', text: 'Hold the key' },
      { sender: 'bot', text: 'Only once' },
    ]);
    await chat.expectReadyAfterReply();
    expect(fake.requests).toHaveLength(1);
  });

  test('Enter and a click on Send at once', async ({ chat, fake, page }) => {
    fake.queue({ hold: true });
    await chat.type('Enter and click');
    const button = await chat.sendButton.boundingBox();
    if (!button) throw new Error('the Send button is not laid out');
    await chat.input.focus();

    // The mouse does not wait for the button to be enabled, as a person's hand would not.
    await page.keyboard.press('Enter');
    await page.mouse.click(button.x + button.width / 2, button.y + button.height / 2);
    await releaseOnce(chat, fake);

    await chat.expectTranscript([
      { sender: 'user', text: 'Enter and click' },
      { sender: 'bot', text: 'Only once' },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  test('a double click on Send', async ({ chat, fake }) => {
    fake.queue({ hold: true });
    await chat.type('Double click');

    await chat.sendButton.dblclick();
    await releaseOnce(chat, fake);

    await chat.expectTranscript([
      { sender: 'user', text: 'Double click' },
      { sender: 'bot', text: 'Only once' },
    ]);
    expect(fake.requests).toHaveLength(1);
  });
});
