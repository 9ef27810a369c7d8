import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HANDOFF_PATH, MAX_HANDOFF_CONVERSATION_BYTES, MAX_HANDOFF_TURNS } from '../../contract/handoff';
import { DEFAULT_PAGE_SETTINGS, PAGE_SETTINGS_ID, type PageSettings } from '../../contract/page-settings';
import { type ChatMessage, chatMachine } from '../../machines/chat-machine';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import { App } from '../app';
import { loadMarkdown } from '../markdown/load-markdown';
import { conversationTurns } from './handoff-form';

const CONTACT = 'mailto:help@shop.example';

/** What the fake server answers a `POST /api/handoff` with, in order; a `GET` always gives a new token. */
type Answer = () => Promise<Response>;
const accepted: Answer = () => Promise.resolve(new Response('{"status":"queued"}', { status: 202 }));
const refused =
  (status: number, error: object, headers: Record<string, string> = {}): Answer =>
  () =>
    Promise.resolve(Response.json({ error }, { status, headers }));

function renderChat(page: Partial<PageSettings>, answers: Answer[] = [accepted]) {
  document.getElementById(PAGE_SETTINGS_ID)?.remove();
  const block = document.createElement('script');
  block.type = 'application/json';
  block.id = PAGE_SETTINGS_ID;
  block.textContent = JSON.stringify(page);
  document.head.append(block);
  let tokens = 0;
  const fetched = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    if (input !== HANDOFF_PATH) return Promise.resolve(new Response(null, { status: 204 }));
    if (init?.method !== 'POST') {
      tokens += 1;
      return Promise.resolve(Response.json({ token: `form-token-${tokens}` }));
    }
    const answer = answers.shift();
    if (!answer) throw new Error('No answer left for a POST');
    return answer();
  });
  const fake = createControllableFetchReply();
  const user = userEvent.setup({ delay: null });
  render(
    <App
      logic={chatMachine.provide({
        actors: { fetchReply: fake.logic },
        delays: { slowHint: 60_000, replyTimeout: 60_000 },
      })}
      settings={{ ...DEFAULT_PAGE_SETTINGS, ...page }}
    />,
  );
  const posts = () =>
    fetched.mock.calls
      .filter(([path, init]) => path === HANDOFF_PATH && init?.method === 'POST')
      .map(([, init]) => JSON.parse(init?.body as string));
  const gets = () => fetched.mock.calls.filter(([path, init]) => path === HANDOFF_PATH && init?.method !== 'POST');
  return { user, fake, posts, gets };
}

type Chat = ReturnType<typeof renderChat>;

/** The visitor asks; the reply comes with a token (proxy mode), covered by the site's pages unless said. */
async function ask({ user, fake }: Chat, question: string, reply: string, uncovered = false) {
  await user.type(screen.getByRole('textbox', { name: 'Message' }), `${question}{Enter}`);
  await act(async () => fake.latest().sources([], { token: `token-${question}`, ...(uncovered ? { uncovered } : {}) }));
  await act(async () => fake.latest().resolve(reply));
}

const button = (name: string) => screen.getByRole('button', { name });
const queryPerson = () => screen.queryAllByRole('button', { name: 'Contact a person' });
/** The header's "Contact a person": the first, as the header comes before the conversation. */
const headerPerson = () => queryPerson()[0];
const form = () => screen.getByRole('form', { name: 'Contact a person' });
const field = (name: string) => within(form()).getByRole('textbox', { name });

/** Opens the form from the header's "Contact a person", fills it and sends it. */
async function sendForm(chat: Chat, email: string, message: string) {
  await chat.user.click(headerPerson());
  await vi.waitFor(() => expect(field('Your email')).toHaveFocus());
  await chat.user.type(field('Your email'), email);
  await chat.user.type(field('Your message'), message);
  await chat.user.click(within(form()).getByRole('button', { name: 'Send' }));
}

describe('Contact a person', () => {
  beforeAll(() => loadMarkdown());
  afterEach(() => {
    vi.restoreAllMocks();
    document.getElementById(PAGE_SETTINGS_ID)?.remove();
  });

  it('is offered only with handoff: under a reply after Not helpful, under an uncovered reply and beside New conversation', async () => {
    const chat = renderChat({ handoff: {}, contact: CONTACT });
    await ask(chat, 'Covered?', 'Yes.');
    expect(button('New conversation')).toBeInTheDocument();
    // Beside New conversation once there is a conversation; not under a reply nobody found wanting.
    expect(queryPerson()).toHaveLength(1);
    await chat.user.click(button('Not helpful'));
    expect(queryPerson()).toHaveLength(2);
    // The person instead of the site's link.
    expect(screen.queryByRole('link', { name: 'Contact us' })).toBeNull();
    await chat.user.click(button('Helpful'));
    expect(queryPerson()).toHaveLength(1);
    await ask(chat, 'Uncovered?', 'The pages do not say.', true);
    expect(queryPerson()).toHaveLength(2);
  });

  it.each([
    ['contact only: the link as today', { contact: CONTACT }, 1],
    ['neither: nothing', {}, 0],
  ])('is not offered with %s', async (_, page, links) => {
    const chat = renderChat(page);
    await ask(chat, 'Uncovered?', 'The pages do not say.', true);
    await chat.user.click(button('Not helpful'));
    expect(queryPerson()).toHaveLength(0);
    expect(screen.queryAllByRole('link', { name: 'Contact us' })).toHaveLength(links);
  });

  it('opens a form in the card, with a token, the focus on the email, and the conversation’s length', async () => {
    const chat = renderChat({ handoff: {} });
    await ask(chat, 'Uncovered?', 'The pages do not say.', true);
    expect(chat.gets()).toHaveLength(0);
    const opener = screen.getAllByRole('button', { name: 'Contact a person' })[1];
    await chat.user.click(opener);
    await vi.waitFor(() => expect(field('Your email')).toHaveFocus());
    expect(chat.gets()).toHaveLength(1);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(field('Your email')).toHaveAttribute('type', 'email');
    expect(field('Your email')).toBeRequired();
    expect(field('Your message')).toBeRequired();
    expect(field('Your message')).toHaveAttribute('maxlength', '2000');
    const include = within(form()).getByRole('checkbox', { name: 'Include this conversation (2 messages)' });
    expect(include).toBeChecked();
    // The honeypot is no field a person meets.
    expect(within(form()).getAllByRole('textbox')).toHaveLength(2);
    // Over the conversation, which is out of reach meanwhile; the composer is not.
    expect(screen.getByRole('log')).toHaveAttribute('inert');
    expect(screen.getByRole('textbox', { name: 'Message' }).closest('[inert]')).toBeNull();

    // Cancel closes it, the focus back on the button that opened it.
    await chat.user.click(within(form()).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('form')).toBeNull();
    expect(screen.getByRole('log')).not.toHaveAttribute('inert');
    await vi.waitFor(() => expect(opener).toHaveFocus());
  });

  it('says what is missing, in one sentence, and sends nothing until the form is right', async () => {
    const chat = renderChat({ handoff: {} });
    await ask(chat, 'Hello?', 'Hello.');
    await chat.user.click(button('Contact a person'));
    await vi.waitFor(() => expect(field('Your email')).toHaveFocus());
    const alert = within(form()).getByRole('alert');
    expect(alert).toHaveTextContent('');

    await chat.user.type(field('Your email'), 'not an address{Enter}');
    expect(alert).toHaveTextContent('Enter your email address, such as name@example.com.');
    expect(field('Your email')).toHaveAttribute('aria-invalid', 'true');
    expect(field('Your email')).toHaveFocus();

    await chat.user.clear(field('Your email'));
    await chat.user.type(field('Your email'), 'ada@example.com');
    await chat.user.type(field('Your message'), '   ');
    await chat.user.click(within(form()).getByRole('button', { name: 'Send' }));
    expect(alert).toHaveTextContent('Write your message.');
    expect(field('Your message')).toHaveAttribute('aria-invalid', 'true');
    expect(field('Your message')).toHaveFocus();
    expect(field('Your email')).not.toHaveAttribute('aria-invalid');
    expect(chat.posts()).toEqual([]);
  });

  it('sends the message with the conversation, says so politely, and is not offered again until New conversation', async () => {
    const chat = renderChat({ handoff: {} });
    await ask(chat, 'Can I return it?', 'The pages do not say.', true);
    await sendForm(chat, ' ada@example.com ', 'I bought a spade.');
    const sent = await screen.findByText('Sent. We will reply to ada@example.com by email.');
    expect(sent.closest('[aria-live="polite"]')).toBe(screen.getByRole('log'));
    expect(screen.queryByRole('form')).toBeNull();
    expect(chat.posts()).toEqual([
      {
        token: 'form-token-1',
        email: 'ada@example.com',
        message: 'I bought a spade.',
        conversation: [
          { role: 'user', text: 'Can I return it?' },
          { role: 'assistant', text: 'The pages do not say.' },
        ],
        language: 'en',
        website: '',
      },
    ]);
    // The button that opened the form is gone: the focus is back in the message box.
    await vi.waitFor(() => expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus());
    // Offered nowhere in this conversation any more, even under a reply that would have had it.
    expect(queryPerson()).toHaveLength(0);
    await chat.user.click(button('Not helpful'));
    expect(queryPerson()).toHaveLength(0);

    await chat.user.click(button('New conversation'));
    expect(screen.queryByText(/^Sent\./)).toBeNull();
    await ask(chat, 'Again?', 'Again.');
    expect(queryPerson()).toHaveLength(1);
  });

  it('says when the site will reply, and leaves the conversation out when asked to', async () => {
    const chat = renderChat({ handoff: { replyWithin: 'one working day' } });
    await ask(chat, 'Hello?', 'Hello.');
    await chat.user.click(button('Contact a person'));
    await vi.waitFor(() => expect(field('Your email')).toHaveFocus());
    await chat.user.click(within(form()).getByRole('checkbox', { name: /^Include this conversation/ }));
    await chat.user.type(field('Your email'), 'ada@example.com');
    await chat.user.type(field('Your message'), 'Call me.');
    await chat.user.click(within(form()).getByRole('button', { name: 'Send' }));
    expect(
      await screen.findByText('Sent. We will reply to ada@example.com by email within one working day.'),
    ).toBeInTheDocument();
    expect(chat.posts()[0]).not.toHaveProperty('conversation');
  });

  it.each([
    [
      'a limit',
      refused(429, { code: 'rate_limited' }, { 'Retry-After': '120' }),
      'Too many messages have been sent. You can try again in 2 minutes.',
    ],
    [
      "a limit, in the site's words",
      refused(429, { code: 'rate_limited', limit_message: 'We are busy.', contact: CONTACT }),
      'We are busy. Contact us',
    ],
    ['a bad address', refused(400, { code: 'invalid_email' }), 'Enter your email address, such as name@example.com.'],
    [
      'an outbox that cannot be written',
      refused(503, { code: 'unavailable' }),
      'Your message could not be sent just now: please try again in a moment.',
    ],
    [
      'a network that fails',
      () => Promise.reject(new TypeError('Failed to fetch')),
      'Your message could not be sent just now: please try again in a moment.',
    ],
    [
      'a form sent too soon',
      refused(400, { code: 'too_soon' }),
      'That was very quick: please wait a moment and send it again.',
    ],
  ])('answers %s with its reason, keeping the form and the text', async (_, answer, reason) => {
    const chat = renderChat({ handoff: {} }, [answer, accepted]);
    await ask(chat, 'Hello?', 'Hello.');
    await sendForm(chat, 'ada@example.com', 'My words, kept.');
    const alert = within(form()).getByRole('alert');
    await vi.waitFor(() => expect(alert).toHaveTextContent(reason));
    expect(field('Your email')).toHaveValue('ada@example.com');
    expect(field('Your message')).toHaveValue('My words, kept.');
    expect(reason.startsWith('Enter') ? field('Your email') : field('Your message')).toHaveFocus();
    expect(screen.queryByText(/^Sent\./)).toBeNull();
    expect(button('Contact a person')).toBeInTheDocument();
    if (reason.endsWith('Contact us')) {
      expect(within(alert).getByRole('link', { name: 'Contact us' })).toHaveAttribute('href', CONTACT);
    }

    // Sent again as it stands: taken.
    await chat.user.click(within(form()).getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Sent. We will reply to ada@example.com by email.')).toBeInTheDocument();
  });

  it('asks for a new token when the form’s was refused, and sends with it', async () => {
    const chat = renderChat({ handoff: {} }, [refused(400, { code: 'expired_token' }), accepted]);
    await ask(chat, 'Hello?', 'Hello.');
    await sendForm(chat, 'ada@example.com', 'Hi.');
    await vi.waitFor(() =>
      expect(within(form()).getByRole('alert')).toHaveTextContent('The form had expired: please send it again.'),
    );
    await chat.user.click(within(form()).getByRole('button', { name: 'Send' }));
    await screen.findByText(/^Sent\./);
    expect(chat.posts().map(({ token }) => token)).toEqual(['form-token-1', 'form-token-2']);
  });

  it('closes on Escape, and only the form: a pending reply goes on', async () => {
    const chat = renderChat({ handoff: {} });
    await ask(chat, 'Hello?', 'Hello.');
    await chat.user.type(screen.getByRole('textbox', { name: 'Message' }), 'And now?{Enter}');
    const opener = headerPerson();
    await chat.user.click(opener);
    await vi.waitFor(() => expect(field('Your email')).toHaveFocus());
    expect(within(form()).getByRole('checkbox')).toHaveAccessibleName('Include this conversation (3 messages)');
    await chat.user.keyboard('{Escape}');
    expect(screen.queryByRole('form')).toBeNull();
    await vi.waitFor(() => expect(opener).toHaveFocus());
    expect(chat.fake.latest().signal.aborted).toBe(false);
    expect(button('Stop')).toBeInTheDocument();
  });
});

describe('the conversation sent with the message', () => {
  const message = (text: string, sender: ChatMessage['sender']): ChatMessage => ({ text, sender });

  it('is the visible messages, the latest that fit the server’s limits', () => {
    expect(conversationTurns([message('Hi', 'user'), { ...message('', 'bot'), status: 'stopped' }])).toEqual([
      { role: 'user', text: 'Hi' },
    ]);
    const many = Array.from({ length: MAX_HANDOFF_TURNS + 5 }, (_, index) => message(`m${index}`, 'user'));
    const turns = conversationTurns(many);
    expect(turns).toHaveLength(MAX_HANDOFF_TURNS);
    expect(turns[0].text).toBe('m5');
    const long = 'x'.repeat(MAX_HANDOFF_CONVERSATION_BYTES / 4);
    const big = conversationTurns(Array.from({ length: 5 }, (_, index) => message(`${index}${long}`, 'bot')));
    expect(big.map(({ text }) => text[0])).toEqual(['2', '3', '4']);
    expect(new TextEncoder().encode(JSON.stringify(big)).length).toBeLessThanOrEqual(MAX_HANDOFF_CONVERSATION_BYTES);
  });
});
