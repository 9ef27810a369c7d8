import { FAKE_REPLY, type FakeBehaviour } from '../testing/fake-provider';
import { faultDeadlineMs } from './e2e-env';
import { ERROR, expect, expectedPayload, NO_CONTENT, streams, test } from './fixtures';

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
}

/**
 * A reply this late leaves the test ample time to see the page in "Sending..." first, even on a busy CI machine.
 */
const SLOW_REPLY_MS = 1500;

/** Every way the provider can answer, and what the visitor must see. The README's fault matrix is this table. */
const FAULTS: Fault[] = [
  {
    name: 'a reply after a delay',
    behaviour: { content: 'Sorry to keep you waiting.', delayMs: SLOW_REPLY_MS },
    shows: 'Sorry to keep you waiting.',
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

for (const fault of FAULTS) {
  test(`${fault.name}: the visitor sees the spec's message, then can chat on`, async ({ chat, fake, mode }) => {
    test.skip(
      fault.streamed !== undefined && fault.streamed !== streams(mode),
      fault.streamed ? 'this build asks for whole replies' : 'this build asks for streamed replies',
    );
    const { shows } = fault;
    const shown = [
      { sender: 'user' as const, text: `Trigger: ${fault.name}` },
      ...(fault.kept ? [{ sender: 'bot' as const, text: fault.kept }] : []),
      { sender: 'bot' as const, text: shows },
    ];
    const failure = shows === ERROR;
    const stalls = 'hang' in fault.behaviour || ('ending' in fault.behaviour && fault.behaviour.ending === 'stall');
    const slow = stalls || (fault.behaviour.delayMs ?? 0) >= SLOW_REPLY_MS;
    // Every request of this message meets the fault, even one the browser sends again by itself.
    fake.respondWith(fault.behaviour);

    const started = Date.now();
    await chat.sendWithEnter(`Trigger: ${fault.name}`);
    if (slow) await chat.expectSending();

    const deadline = faultDeadlineMs(mode);
    await chat.expectTranscript(shown, deadline);
    await chat.expectReadyAfterReply();
    expect(Date.now() - started, `back to idle within ${deadline} ms`).toBeLessThan(deadline);

    expect(chat.chatErrors(), 'console errors for the failed call').toHaveLength(failure ? 1 : 0);
    // One visitor message, one request: nothing retries behind the visitor's back, not even a 429 or a 503.
    const sent = fake.requests.map((request) => request.body);
    const resent = fault.browserMayResend && mode === 'direct' && sent.length === 2 ? 1 : 0;
    expect(sent).toEqual(Array(1 + resent).fill(expectedPayload(`Trigger: ${fault.name}`, mode)));
    if (stalls) {
      // Whoever gave up (the page, or the proxy first) closed the request instead of leaving it open.
      await expect.poll(() => fake.requests[0].aborted, { message: 'the stalled request was abandoned' }).toBe(true);
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
  });
}

test.describe('double submits send one request', () => {
  test('Enter held down', async ({ chat, fake, page }) => {
    fake.queue({ content: 'Only once', delayMs: 400 });
    await chat.type('Hold the key');
    await chat.input.focus();
    // Pressing a key that is already down is an auto-repeat, as when the key is held.
    for (let i = 0; i < 8; i++) await page.keyboard.down('Enter');
    await page.keyboard.up('Enter');

    await chat.expectTranscript([
      { sender: 'user', text: 'Hold the key' },
      { sender: 'bot', text: 'Only once' },
    ]);
    await chat.expectReadyAfterReply();
    expect(fake.requests).toHaveLength(1);
  });

  test('Enter and a click on Send at once', async ({ chat, fake, page }) => {
    fake.queue({ content: 'Only once', delayMs: 400 });
    await chat.type('Enter and click');
    const button = await chat.sendButton.boundingBox();
    if (!button) throw new Error('the Send button is not laid out');
    await chat.input.focus();

    // The mouse does not wait for the button to be enabled, as a person's hand would not.
    await page.keyboard.press('Enter');
    await page.mouse.click(button.x + button.width / 2, button.y + button.height / 2);

    await chat.expectTranscript([
      { sender: 'user', text: 'Enter and click' },
      { sender: 'bot', text: 'Only once' },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  test('a double click on Send', async ({ chat, fake }) => {
    fake.queue({ content: 'Only once', delayMs: 400 });
    await chat.type('Double click');

    await chat.sendButton.dblclick();

    await chat.expectTranscript([
      { sender: 'user', text: 'Double click' },
      { sender: 'bot', text: 'Only once' },
    ]);
    expect(fake.requests).toHaveLength(1);
  });
});
