// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { CATALOGUES } from '../locales/catalogues';
import { type ChatActor, startChat, submit } from '../testing/chat-actor';
import {
  type ChatMessage,
  chatMachine,
  ERROR_MESSAGE,
  NO_CONTENT_MESSAGE,
  ReplyLimitedError,
  ReplyTimeoutError,
} from './chat-machine';

/** How long a test waits at most for a short timer of the machine to fire, on however busy a machine. */
const WAIT_MS = 4_000;

const backToIdle = (actor: ChatActor) => waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: WAIT_MS });

// The visitor-facing strings are the spec's; spelled out here so that changing them is a visible decision.
const NO_CONTENT = 'No response received';
const ERROR = 'Error: Unable to get response';

const SOURCES = [
  { n: 1, title: 'Returns', url: 'https://www.example.com/help/returns' },
  { n: 2, title: 'Hours', url: 'https://www.example.com/hours' },
];

describe("the site's sources", () => {
  it('holds them on the reply they came with, whether it arrives whole, streams in or is stopped', async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Can I return it?');
    fake.latest().sources(SOURCES);
    expect(actor.getSnapshot().matches({ sending: 'waiting' })).toBe(true);
    fake.latest().resolve('Within thirty days [1].');
    await backToIdle(actor);

    submit(actor, 'And the hours?');
    fake.latest().sources(SOURCES.slice(1));
    fake.latest().delta('Nine to five [1]');
    expect(actor.getSnapshot().context.sources).toEqual(SOURCES.slice(1));
    actor.send({ type: 'reply.stop' });

    submit(actor, 'Anything about sourdough?');
    fake.latest().resolve('The pages do not say.');
    await backToIdle(actor);

    expect(actor.getSnapshot().context.messages.filter((m) => m.sender === 'bot')).toEqual([
      { text: 'Within thirty days [1].', sender: 'bot', status: 'answer', sources: SOURCES },
      { text: 'Nine to five [1]', sender: 'bot', status: 'stopped', sources: SOURCES.slice(1) },
      { text: 'The pages do not say.', sender: 'bot', status: 'answer' },
    ]);
    expect(actor.getSnapshot().context.sources).toBeUndefined();
  });

  it('gives none to a reply without content, and keeps them on what streamed in before a failure', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { actor, fake } = startChat();
    submit(actor, 'Returns?');
    fake.latest().sources(SOURCES);
    fake.latest().resolve('  ');
    await backToIdle(actor);
    submit(actor, 'Returns again?');
    fake.latest().sources(SOURCES);
    fake.latest().delta('Thirty days');
    fake.latest().reject(new Error('down'));
    await backToIdle(actor);

    expect(actor.getSnapshot().context.messages.filter((m) => m.sender === 'bot')).toEqual([
      { text: NO_CONTENT, sender: 'bot', status: 'empty' },
      { text: 'Thirty days', sender: 'bot', status: 'answer', sources: SOURCES },
      { text: ERROR, sender: 'bot', status: 'failed' },
    ]);
  });
});

describe('the vote on a reply', () => {
  it('belongs to the reply the server gave a token with; a change replaces it, and each is announced once', async () => {
    const { actor, fake } = startChat();
    const voted = vi.fn();
    actor.on('reply.voted', voted);
    submit(actor, 'Can I return it?');
    fake.latest().sources(SOURCES, { token: 't-1' });
    fake.latest().resolve('Within thirty days [1].');
    await backToIdle(actor);
    const reply = () => actor.getSnapshot().context.messages[1];
    expect(reply().feedback).toEqual({ token: 't-1' });

    actor.send({ type: 'reply.vote', token: 't-1', rating: 'up' });
    expect(reply().feedback).toEqual({ token: 't-1', rating: 'up' });
    // The same vote again changes nothing and is not sent twice.
    actor.send({ type: 'reply.vote', token: 't-1', rating: 'up' });
    actor.send({ type: 'reply.vote', token: 't-1', rating: 'down' });
    actor.send({ type: 'reply.vote', token: 't-1', rating: 'down', reason: 'outdated' });
    expect(reply()).toEqual({
      text: 'Within thirty days [1].',
      sender: 'bot',
      status: 'answer',
      sources: SOURCES,
      feedback: { token: 't-1', rating: 'down', reason: 'outdated' },
    });
    // Back to Helpful: the reason goes with the old vote.
    actor.send({ type: 'reply.vote', token: 't-1', rating: 'up' });
    expect(reply().feedback).toEqual({ token: 't-1', rating: 'up' });
    expect(voted.mock.calls.map(([event]) => event)).toEqual([
      { type: 'reply.voted', token: 't-1', rating: 'up' },
      { type: 'reply.voted', token: 't-1', rating: 'down' },
      { type: 'reply.voted', token: 't-1', rating: 'down', reason: 'outdated' },
      { type: 'reply.voted', token: 't-1', rating: 'up' },
    ]);
  });

  it("keeps the server's answer to the current vote only: an answer to a vote since replaced says nothing", async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Can I return it?');
    fake.latest().sources(SOURCES, { token: 't-1' });
    fake.latest().resolve('Within thirty days [1].');
    await backToIdle(actor);
    const feedback = () => actor.getSnapshot().context.messages[1].feedback;

    actor.send({ type: 'reply.vote', token: 't-1', rating: 'up' });
    actor.send({ type: 'reply.vote', token: 't-1', rating: 'down' });
    actor.send({ type: 'reply.voteSettled', token: 't-1', rating: 'up', outcome: 'counted' });
    expect(feedback()).toEqual({ token: 't-1', rating: 'down' });
    actor.send({ type: 'reply.voteSettled', token: 't-1', rating: 'down', outcome: 'refused' });
    expect(feedback()).toEqual({ token: 't-1', rating: 'down', outcome: 'refused' });
    // A new vote is on its way: nothing is said of it until its answer.
    actor.send({ type: 'reply.vote', token: 't-1', rating: 'down', reason: 'wrong' });
    expect(feedback()).toEqual({ token: 't-1', rating: 'down', reason: 'wrong' });
    actor.send({ type: 'reply.voteSettled', token: 't-1', rating: 'down', reason: 'wrong', outcome: 'counted' });
    expect(feedback()).toEqual({ token: 't-1', rating: 'down', reason: 'wrong', outcome: 'counted' });
  });

  it('is taken on a stopped reply, and while the next reply is pending; a reply without a token takes none', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { actor, fake } = startChat();
    const voted = vi.fn();
    actor.on('reply.voted', voted);
    submit(actor, 'Hours?');
    fake.latest().sources([], { token: 't-stopped', uncovered: true });
    fake.latest().delta('Nine to');
    actor.send({ type: 'reply.stop' });
    submit(actor, 'Returns?');
    fake.latest().sources([], { token: 't-pending' });
    actor.send({ type: 'reply.vote', token: 't-stopped', rating: 'down', reason: 'unclear' });
    // A token of a reply still coming names no message yet, and one no reply has names nothing.
    actor.send({ type: 'reply.vote', token: 't-pending', rating: 'up' });
    actor.send({ type: 'reply.vote', token: 'forged', rating: 'up' });
    expect(actor.getSnapshot().matches('sending')).toBe(true);
    fake.latest().reject(new Error('down'));
    await backToIdle(actor);
    submit(actor, 'Direct mode?');
    fake.latest().resolve('No token here.');
    await backToIdle(actor);

    const bots = actor.getSnapshot().context.messages.filter((m) => m.sender === 'bot');
    expect(bots).toEqual([
      {
        text: 'Nine to',
        sender: 'bot',
        status: 'stopped',
        feedback: { token: 't-stopped', uncovered: true, rating: 'down', reason: 'unclear' },
      },
      { text: ERROR, sender: 'bot', status: 'failed' },
      { text: 'No token here.', sender: 'bot', status: 'answer' },
    ]);
    expect(voted).toHaveBeenCalledTimes(1);
    expect(actor.getSnapshot().context.token).toBeUndefined();
  });

  it('gives no token to an empty stopped reply, nor to a reply without content', async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    fake.latest().sources([], { token: 't-1' });
    actor.send({ type: 'reply.stop' });
    submit(actor, 'Hi again');
    fake.latest().sources([], { token: 't-2' });
    fake.latest().resolve(' ');
    await backToIdle(actor);
    expect(actor.getSnapshot().context.messages.filter((m) => m.sender === 'bot')).toEqual([
      { text: '', sender: 'bot', status: 'stopped' },
      { text: NO_CONTENT, sender: 'bot', status: 'empty' },
    ]);
  });
});

describe('chat machine', () => {
  it('starts idle with an empty conversation and an empty draft', () => {
    const { actor } = startChat();
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toEqual({ idle: 'ready' });
    expect(snapshot.context).toEqual({
      messages: [],
      draft: '',
      reply: '',
      statusTexts: { noContent: NO_CONTENT, error: ERROR },
    });
  });

  it("writes its own bot messages in the texts it is given (the visitor's language)", async () => {
    const statusTexts = { noContent: 'Keine Antwort erhalten', error: 'Fehler: Antwort konnte nicht abgerufen werden' };
    const { actor, fake } = startChat({}, { statusTexts });
    submit(actor, 'Hallo');
    fake.latest().resolve('  ');
    await backToIdle(actor);
    submit(actor, 'Noch einmal');
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    fake.latest().reject(new Error('down'));
    await backToIdle(actor);
    expect(actor.getSnapshot().context.messages.filter((message) => message.sender === 'bot')).toEqual([
      { text: statusTexts.noContent, sender: 'bot', status: 'empty' },
      { text: statusTexts.error, sender: 'bot', status: 'failed' },
    ]);
  });

  it("exports the spec's texts", () => {
    expect(NO_CONTENT_MESSAGE).toBe(NO_CONTENT);
    expect(ERROR_MESSAGE).toBe(ERROR);
  });

  it('keeps the latest draft while idle', () => {
    const { actor } = startChat();
    actor.send({ type: 'draft.change', text: 'Hel' });
    actor.send({ type: 'draft.change', text: 'Hello' });
    expect(actor.getSnapshot().context.draft).toBe('Hello');
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    expect(actor.getSnapshot().context.messages).toEqual([]);
  });

  describe('ignores a submit with nothing but whitespace', () => {
    it.each([
      ['an empty draft', ''],
      ['spaces', '   '],
      ['tabs and newlines', '\t\n \r\n'],
      ['no-break and other Unicode spaces', '\u00a0\u2003\u3000\ufeff'],
    ])('%s', (_, text) => {
      const { actor, fake } = startChat();
      actor.send({ type: 'draft.change', text });
      expect(actor.getSnapshot().can({ type: 'message.submit' })).toBe(false);

      actor.send({ type: 'message.submit' });

      const snapshot = actor.getSnapshot();
      expect(snapshot.matches('idle')).toBe(true);
      expect(snapshot.context.messages).toEqual([]);
      expect(snapshot.context.draft).toBe(text);
      expect(fake.calls).toHaveLength(0);
    });
  });

  describe('sends a non-empty message exactly as typed', () => {
    it.each([
      ['plain text', 'Hello'],
      ['leading and trailing spaces', '  padded message \n'],
      ['markup', '<b>bold</b><script>alert("x")</script> & &amp;'],
      ['emoji and accents', '👋🏽 Grüße, naïve café 🤖'],
      ['a single character', 'x'],
    ])('%s', (_, text) => {
      const { actor, fake } = startChat();
      actor.send({ type: 'draft.change', text });
      expect(actor.getSnapshot().can({ type: 'message.submit' })).toBe(true);

      actor.send({ type: 'message.submit' });

      const snapshot = actor.getSnapshot();
      expect(snapshot.value).toEqual({ sending: { waiting: 'quiet' } });
      expect(snapshot.context.messages).toEqual([{ text, sender: 'user' }]);
      expect(snapshot.context.draft).toBe('');
      expect(fake.calls).toHaveLength(1);
      expect(fake.latest().input.text).toBe(text);
    });

    it('keeps all 50 000 characters, untrimmed', () => {
      const { actor, fake } = startChat();
      const text = ` ${'word '.repeat(9_999)}end `;
      expect(text).toHaveLength(50_000);

      submit(actor, text);

      expect(actor.getSnapshot().context.messages).toEqual([{ text, sender: 'user' }]);
      expect(fake.latest().input.text).toBe(text);
    });
  });

  it('sends only the latest message, never the earlier conversation', async () => {
    const { actor, fake } = startChat();
    submit(actor, 'first question');
    fake.latest().resolve('first answer');
    await backToIdle(actor);

    submit(actor, 'second question');

    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[1].input.text).toBe('second question');
    expect(actor.getSnapshot().context.messages).toEqual<ChatMessage[]>([
      { text: 'first question', sender: 'user' },
      { text: 'first answer', sender: 'bot', status: 'answer' },
      { text: 'second question', sender: 'user' },
    ]);
  });

  it('ignores a second submit and any typing while sending', () => {
    const { actor, fake } = startChat();
    submit(actor, 'only once');

    actor.send({ type: 'message.submit' });
    actor.send({ type: 'draft.change', text: 'typed while waiting' });
    actor.send({ type: 'message.submit' });

    const snapshot = actor.getSnapshot();
    expect(snapshot.matches('sending')).toBe(true);
    expect(snapshot.can({ type: 'message.submit' })).toBe(false);
    expect(snapshot.can({ type: 'draft.change', text: 'x' })).toBe(false);
    expect(snapshot.context.draft).toBe('');
    expect(snapshot.context.messages).toEqual([{ text: 'only once', sender: 'user' }]);
    expect(fake.calls).toHaveLength(1);
  });

  it("appends the reply's content as a bot message and returns to idle", async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    fake.latest().resolve('  Hello! <i>How</i> can I help? 🤖 ');

    await backToIdle(actor);

    expect(actor.getSnapshot().value).toEqual({ idle: 'ready' });
    expect(actor.getSnapshot().context).toMatchObject({
      draft: '',
      reply: '',
      messages: [
        { text: 'Hi', sender: 'user' },
        { text: '  Hello! <i>How</i> can I help? 🤖 ', sender: 'bot', status: 'answer' },
      ],
    });
  });

  it.each([
    ['null', null],
    ['an empty string', ''],
    ['only white space', ' \n\t '],
  ])('answers a reply of %s with "No response received"', async (_, output) => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    fake.latest().resolve(output);

    await backToIdle(actor);

    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi', sender: 'user' },
      { text: NO_CONTENT, sender: 'bot', status: 'empty' },
    ]);
  });

  it('logs a failure and answers it with the error message, then accepts a new message', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { actor, fake } = startChat();
    const failure = new Error('provider unreachable');
    submit(actor, 'Hi');
    expect(consoleError).not.toHaveBeenCalled();

    fake.latest().reject(failure);
    await backToIdle(actor);

    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(consoleError.mock.calls[0]).toContain(failure);
    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi', sender: 'user' },
      { text: ERROR, sender: 'bot', status: 'failed' },
    ]);

    expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
    submit(actor, 'Again');
    expect(actor.getSnapshot().matches('sending')).toBe(true);
    expect(fake.calls).toHaveLength(2);
  });

  it('aborts the pending request when the chat stops while sending', () => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    const { signal } = fake.latest();
    expect(signal.aborted).toBe(false);

    actor.stop();

    expect(signal.aborted).toBe(true);
  });

  it('does not abort a request that has been answered', async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Hi');
    const call = fake.latest();
    call.resolve('Hello');
    await backToIdle(actor);

    actor.stop();

    expect(call.signal.aborted).toBe(false);
  });

  it('fails into the error message, not a hang, when no fetchReply is provided', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const actor = createActor(chatMachine).start();
    submit(actor, 'Hi');

    await backToIdle(actor);

    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Hi', sender: 'user' },
      { text: ERROR, sender: 'bot', status: 'failed' },
    ]);
    expect(consoleError).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ message: expect.stringContaining('not provided') }),
    );
  });

  describe('streaming', () => {
    it('shows each piece as it arrives, and the whole reply as one message at the end', async () => {
      const { actor, fake } = startChat();
      submit(actor, 'Tell me a story');
      expect(actor.getSnapshot().matches({ sending: 'waiting' })).toBe(true);

      fake.latest().delta('Once');
      expect(actor.getSnapshot().value).toEqual({ sending: 'streaming' });
      expect(actor.getSnapshot().context.reply).toBe('Once');
      fake.latest().delta(' upon a time');
      expect(actor.getSnapshot().context.reply).toBe('Once upon a time');
      expect(actor.getSnapshot().context.messages).toEqual([{ text: 'Tell me a story', sender: 'user' }]);

      fake.latest().resolve('Once upon a time');
      await backToIdle(actor);

      expect(actor.getSnapshot().value).toEqual({ idle: 'ready' });
      expect(actor.getSnapshot().context).toMatchObject({
        reply: '',
        messages: [
          { text: 'Tell me a story', sender: 'user' },
          { text: 'Once upon a time', sender: 'bot', status: 'answer' },
        ],
      });
    });

    it('keeps the text received so far when the stream fails, and follows it with the error message', async () => {
      const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { actor, fake } = startChat();
      submit(actor, 'Hi');
      fake.latest().delta('Half a rep');
      const failure = new Error('stream broke off');

      fake.latest().reject(failure);
      await backToIdle(actor);

      expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
      expect(actor.getSnapshot().context.messages).toEqual([
        { text: 'Hi', sender: 'user' },
        { text: 'Half a rep', sender: 'bot', status: 'answer' },
        { text: ERROR, sender: 'bot', status: 'failed' },
      ]);
      expect(consoleError).toHaveBeenCalledWith('Chat request failed:', failure);
    });

    it('ignores a piece that arrives after the reply ended', async () => {
      const { actor, fake } = startChat();
      submit(actor, 'Hi');
      const call = fake.latest();
      call.resolve('Done');
      await backToIdle(actor);

      call.delta('late');

      expect(actor.getSnapshot().context.reply).toBe('');
      expect(actor.getSnapshot().context.messages.at(-1)).toEqual({ text: 'Done', sender: 'bot', status: 'answer' });
    });
  });

  describe('the wait', () => {
    it('says the reply is slow after slowHint without a first piece, and not once one has arrived', async () => {
      const { actor, fake } = startChat({ slowHint: 30 });
      submit(actor, 'Hi');
      expect(actor.getSnapshot().value).toEqual({ sending: { waiting: 'quiet' } });

      await waitFor(actor, (snapshot) => snapshot.matches({ sending: { waiting: 'slow' } }), {
        timeout: WAIT_MS,
      });
      fake.latest().delta('Hello');

      expect(actor.getSnapshot().value).toEqual({ sending: 'streaming' });
    });

    it('fails with the error message when no first piece comes within replyTimeout, and abandons the request', async () => {
      const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { actor, fake } = startChat({ replyTimeout: 40 });
      submit(actor, 'Hi');

      await backToIdle(actor);

      expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
      expect(actor.getSnapshot().context.messages.at(-1)).toEqual({ text: ERROR, sender: 'bot', status: 'failed' });
      expect(fake.latest().signal.aborted).toBe(true);
      expect(consoleError).toHaveBeenCalledWith('Chat request failed:', expect.any(ReplyTimeoutError));
    });

    it('restarts the deadline with each piece, and fails a stream that stalls, keeping what came', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      // The test moves the clock itself: on a busy machine a real wait of "less than the deadline" can overrun it.
      vi.useFakeTimers();
      try {
        const { actor, fake } = startChat({ replyTimeout: 60 });
        submit(actor, 'Hi');
        // Pieces 40 ms apart: more than the deadline in all, less between any two.
        for (const piece of ['a', 'b', 'c']) {
          vi.advanceTimersByTime(40);
          fake.latest().delta(piece);
          expect(actor.getSnapshot().matches({ sending: 'streaming' })).toBe(true);
        }
        vi.advanceTimersByTime(59);
        expect(actor.getSnapshot().matches({ sending: 'streaming' })).toBe(true);
        vi.advanceTimersByTime(1);
        expect(actor.getSnapshot().matches('idle')).toBe(true);

        expect(actor.getSnapshot().context.messages).toEqual([
          { text: 'Hi', sender: 'user' },
          { text: 'abc', sender: 'bot', status: 'answer' },
          { text: ERROR, sender: 'bot', status: 'failed' },
        ]);
        expect(fake.latest().signal.aborted).toBe(true);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('a refusal by a limit', () => {
    it('answers with the error message, then holds Retry back for the wait the server asked for', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { actor, fake } = startChat({ limitWait: 100 });
      submit(actor, 'Hi');
      const refusal = new ReplyLimitedError('daily', 5400);
      fake.latest().reject(refusal);
      await backToIdle(actor);

      expect(actor.getSnapshot().value).toEqual({ idle: 'limited' });
      expect(actor.getSnapshot().context.limit).toEqual({ reason: 'daily', retryAfterSeconds: 5400 });
      expect(actor.getSnapshot().context.messages.at(-1)).toEqual({ text: ERROR, sender: 'bot', status: 'failed' });
      expect(console.error).toHaveBeenCalledWith('Chat request failed:', refusal);
      expect(actor.getSnapshot().can({ type: 'reply.retry' })).toBe(false);
      actor.send({ type: 'reply.retry' });
      expect(fake.calls).toHaveLength(1);

      await waitFor(actor, (snapshot) => snapshot.matches({ idle: 'retryable' }), { timeout: WAIT_MS });
      expect(actor.getSnapshot().context.limit).toBeUndefined();
      actor.send({ type: 'reply.retry' });
      expect(fake.calls.map((call) => call.input.text)).toEqual(['Hi', 'Hi']);
    });

    it("waits the refusal's own Retry-After by default", async () => {
      vi.useFakeTimers();
      try {
        vi.spyOn(console, 'error').mockImplementation(() => undefined);
        const { actor, fake } = startChat();
        submit(actor, 'Hi');
        fake.latest().reject(new ReplyLimitedError('rate', 42));
        await vi.advanceTimersByTimeAsync(41_900);
        expect(actor.getSnapshot().value).toEqual({ idle: 'limited' });
        await vi.advanceTimersByTimeAsync(200);
        expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
      } finally {
        vi.useRealTimers();
      }
    });

    it('still takes a new message while it waits', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { actor, fake } = startChat({ limitWait: 60_000 });
      submit(actor, 'Hi');
      fake.latest().reject(new ReplyLimitedError('rate', 60));
      await backToIdle(actor);
      submit(actor, 'Later');
      expect(actor.getSnapshot().matches('sending')).toBe(true);
      expect(actor.getSnapshot().context.limit).toBeUndefined();
      expect(fake.latest().input.text).toBe('Later');
    });

    it('is an ordinary failure when the error is not a limit', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { actor, fake } = startChat();
      submit(actor, 'Hi');
      fake.latest().reject(new Error('429 from the provider itself'));
      await backToIdle(actor);
      expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
    });
  });

  describe('Stop', () => {
    it('ends a streaming reply at once, keeps its text marked as stopped, and abandons the request', () => {
      const { actor, fake } = startChat();
      submit(actor, 'Hi');
      fake.latest().delta('Partial');

      actor.send({ type: 'reply.stop' });

      expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
      expect(actor.getSnapshot().context.messages).toEqual([
        { text: 'Hi', sender: 'user' },
        { text: 'Partial', sender: 'bot', status: 'stopped' },
      ]);
      expect(fake.latest().signal.aborted).toBe(true);
    });

    it('ends a reply still awaited, with an empty stopped reply', () => {
      const { actor, fake } = startChat();
      submit(actor, 'Hi');

      actor.send({ type: 'reply.stop' });

      expect(actor.getSnapshot().context.messages.at(-1)).toEqual({ text: '', sender: 'bot', status: 'stopped' });
      expect(fake.latest().signal.aborted).toBe(true);
    });

    it('is not possible while idle', () => {
      const { actor } = startChat();
      expect(actor.getSnapshot().can({ type: 'reply.stop' })).toBe(false);
    });
  });

  describe('the end of a reply', () => {
    it('is announced (reply.ended) once however the reply ends: an answer, a failure, a timeout, a stop', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { actor, fake } = startChat({ replyTimeout: 40 });
      const ended: string[] = [];
      actor.on('reply.ended', (event) => ended.push(event.type));

      submit(actor, 'answered');
      fake.latest().delta('Hel');
      fake.latest().delta('lo');
      expect(ended).toEqual([]);
      fake.latest().resolve('Hello');
      await backToIdle(actor);
      expect(ended).toHaveLength(1);

      submit(actor, 'failed');
      fake.latest().reject(new Error('down'));
      await backToIdle(actor);
      expect(ended).toHaveLength(2);

      submit(actor, 'timed out');
      await backToIdle(actor);
      expect(ended).toHaveLength(3);

      submit(actor, 'stopped');
      actor.send({ type: 'reply.stop' });
      expect(ended).toEqual(['reply.ended', 'reply.ended', 'reply.ended', 'reply.ended']);
    });
  });

  describe('Retry', () => {
    it('asks again for the same message in one new request, replacing the failed attempt', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const { actor, fake } = startChat();
      submit(actor, 'Hi');
      fake.latest().delta('Hal');
      fake.latest().reject(new Error('broke off'));
      await backToIdle(actor);
      actor.send({ type: 'draft.change', text: 'a draft in progress' });

      actor.send({ type: 'reply.retry' });

      expect(fake.calls).toHaveLength(2);
      expect(fake.latest().input.text).toBe('Hi');
      expect(actor.getSnapshot().context.messages).toEqual([{ text: 'Hi', sender: 'user' }]);
      expect(actor.getSnapshot().context.draft).toBe('a draft in progress');
      expect(actor.getSnapshot().can({ type: 'reply.retry' })).toBe(false);

      fake.latest().resolve('Hello');
      await backToIdle(actor);
      expect(actor.getSnapshot().context.messages).toEqual([
        { text: 'Hi', sender: 'user' },
        { text: 'Hello', sender: 'bot', status: 'answer' },
      ]);
      expect(actor.getSnapshot().can({ type: 'reply.retry' })).toBe(false);
    });

    it('asks again after a stop', () => {
      const { actor, fake } = startChat();
      submit(actor, 'Hi');
      actor.send({ type: 'reply.stop' });

      actor.send({ type: 'reply.retry' });

      expect(fake.calls.map((call) => call.input.text)).toEqual(['Hi', 'Hi']);
      expect(actor.getSnapshot().context.messages).toEqual([{ text: 'Hi', sender: 'user' }]);
    });

    it.each([
      ['before anything was sent', () => startChat().actor],
      [
        'after a reply',
        () => {
          const { actor, fake } = startChat();
          submit(actor, 'Hi');
          fake.latest().resolve('Hello');
          return actor;
        },
      ],
      [
        'while a reply is pending',
        () => {
          const { actor } = startChat();
          submit(actor, 'Hi');
          return actor;
        },
      ],
    ])('is not offered %s', async (_, start) => {
      const actor = start();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(actor.getSnapshot().can({ type: 'reply.retry' })).toBe(false);
    });
  });
});

describe('a conversation kept for the tab (persist: tab)', () => {
  const earlier: ChatMessage[] = [
    { text: 'Do you ship to Norway?', sender: 'user' },
    { text: 'Yes, in three days.', sender: 'bot', status: 'answer' },
  ];

  it('goes on where it was: no starters, and its exchanges count as earlier ones with history', () => {
    const { actor, fake } = startChat({}, { restored: earlier, starters: ['Hi?'], history: 2 });
    expect(actor.getSnapshot().value).toEqual({ idle: 'ready' });
    submit(actor, 'And to Iceland?');
    expect(fake.latest().input.history).toEqual([
      { question: 'Do you ship to Norway?', answer: 'Yes, in three days.' },
    ]);
  });

  it('offers Retry for a reply cut off by the page change, with what had arrived', () => {
    const cut: ChatMessage[] = [
      ...earlier,
      { text: 'And to', sender: 'user' },
      { text: 'We', sender: 'bot', status: 'stopped' },
    ];
    const { actor, fake } = startChat({}, { restored: cut });
    expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
    actor.send({ type: 'reply.retry' });
    expect(fake.latest().input.text).toBe('And to');
    expect(actor.getSnapshot().context.messages).toEqual([...earlier, { text: 'And to', sender: 'user' }]);
  });

  it('offers Retry for a reply that failed on a page in another language, known by its status', () => {
    const german = { noContent: CATALOGUES.de.noContent, error: CATALOGUES.de.error };
    const failed: ChatMessage[] = [
      ...earlier,
      { text: 'And to', sender: 'user' },
      { text: ERROR, sender: 'bot', status: 'failed' },
    ];
    const { actor, fake } = startChat({}, { restored: failed, statusTexts: german, history: 2 });
    expect(actor.getSnapshot().value).toEqual({ idle: 'retryable' });
    actor.send({ type: 'reply.retry' });
    expect(fake.latest().input).toMatchObject({
      text: 'And to',
      history: [{ question: earlier[0].text, answer: earlier[1].text }],
    });

    // An answer is an answer, whatever it says: no Retry, and it goes with the next message.
    const answered: ChatMessage[] = [
      { text: 'Say it', sender: 'user' },
      { text: german.error, sender: 'bot', status: 'answer' },
    ];
    const next = startChat({}, { restored: answered, statusTexts: german, history: 2 });
    expect(next.actor.getSnapshot().value).toEqual({ idle: 'ready' });
    submit(next.actor, 'Again?');
    expect(next.fake.latest().input.history).toEqual([{ question: 'Say it', answer: german.error }]);
  });

  it('is cleared by "New conversation", a pending reply with it, and the starters come back', async () => {
    const { actor, fake } = startChat({}, { restored: earlier, starters: ['Hi?'] });
    submit(actor, 'More?');
    actor.send({ type: 'conversation.clear' });
    expect(fake.latest().signal.aborted).toBe(true);
    expect(actor.getSnapshot().value).toEqual({ idle: 'fresh' });
    expect(actor.getSnapshot().context).toMatchObject({ messages: [], reply: '' });
    expect(actor.getSnapshot().can({ type: 'conversation.clear' })).toBe(false);
  });

  it("forgets a cleared reply's sources: the next reply, given none, cites none", async () => {
    const { actor, fake } = startChat();
    submit(actor, 'Can I return it?');
    fake.latest().sources(SOURCES);
    fake.latest().delta('Within');
    actor.send({ type: 'conversation.clear' });
    expect(actor.getSnapshot().context.sources).toBeUndefined();
    submit(actor, 'Anything about sourdough?');
    fake.latest().resolve('The pages do not say.');
    await backToIdle(actor);
    expect(actor.getSnapshot().context.messages).toEqual([
      { text: 'Anything about sourdough?', sender: 'user' },
      { text: 'The pages do not say.', sender: 'bot', status: 'answer' },
    ]);
  });
});
