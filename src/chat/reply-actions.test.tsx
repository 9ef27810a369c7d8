import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FEEDBACK_PATH } from '../../contract/feedback';
import { DEFAULT_PAGE_SETTINGS, PAGE_SETTINGS_ID } from '../../contract/page-settings';
import { chatMachine } from '../../machines/chat-machine';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import { App } from '../app';
import { loadMarkdown } from '../markdown/load-markdown';

const CONTACT = 'mailto:help@shop.example';

function renderChat(contact?: string) {
  document.getElementById(PAGE_SETTINGS_ID)?.remove();
  if (contact) {
    const block = document.createElement('script');
    block.type = 'application/json';
    block.id = PAGE_SETTINGS_ID;
    block.textContent = JSON.stringify({ contact });
    document.head.append(block);
  }
  const posted = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response(null, { status: 204 }));
  const fake = createControllableFetchReply();
  const user = userEvent.setup({ delay: null });
  render(
    <App
      logic={chatMachine.provide({
        actors: { fetchReply: fake.logic },
        delays: { slowHint: 60_000, replyTimeout: 60_000 },
      })}
      settings={{ ...DEFAULT_PAGE_SETTINGS, welcome: 'Hello!', ...(contact ? { contact } : {}) }}
    />,
  );
  return { user, fake, posted };
}

const button = (name: string) => screen.getByRole('button', { name });
/** The polite live region beside a reply's votes: after Copy's own. */
const voteStatus = () => within(button('Helpful').parentElement as HTMLElement).getAllByRole('status')[1];

describe('Helpful and Not helpful', () => {
  beforeAll(() => loadMarkdown());
  afterEach(() => vi.restoreAllMocks());

  it('are under a reply the server gave a token with, not the welcome nor an error; the vote is sent without text', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, fake, posted } = renderChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Secret question{Enter}');
    await act(async () => fake.latest().sources([], { token: 'token-1' }));
    await act(async () => fake.latest().resolve('An answer.'));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Another{Enter}');
    await act(async () => fake.latest().reject(new Error('down')));
    // Only the one reply has them: the welcome and the error have none.
    expect(screen.getAllByRole('button', { name: 'Helpful' })).toHaveLength(1);
    expect(screen.getAllByRole('button', { name: 'Not helpful' })).toHaveLength(1);
    expect(button('Helpful')).toHaveAttribute('aria-pressed', 'false');

    await user.click(button('Helpful'));
    expect(button('Helpful')).toHaveAttribute('aria-pressed', 'true');
    expect(posted).toHaveBeenCalledTimes(1);
    const [path, init] = posted.mock.calls[0] as [string, RequestInit];
    expect(path).toBe(FEEDBACK_PATH);
    expect(JSON.parse(init.body as string)).toEqual({ reply: 'token-1', rating: 'up' });
    expect(String(init.body)).not.toMatch(/Secret|answer/);

    // Changed: Not helpful replaces it, and offers the five reasons (optional).
    await user.click(button('Not helpful'));
    expect(button('Helpful')).toHaveAttribute('aria-pressed', 'false');
    expect(button('Not helpful')).toHaveAttribute('aria-pressed', 'true');
    const reasons = screen.getByRole('group', { name: 'What was wrong?' });
    expect(
      within(reasons)
        .getAllByRole('button')
        .map((reason) => reason.textContent),
    ).toEqual(['Wrong', 'Out of date', 'Unclear', 'Not what I asked', 'Something else']);
    await user.click(within(reasons).getByRole('button', { name: 'Out of date' }));
    expect(within(reasons).getByRole('button', { name: 'Out of date' })).toHaveAttribute('aria-pressed', 'true');
    expect(posted.mock.calls.map(([, sent]) => JSON.parse((sent as RequestInit).body as string))).toEqual([
      { reply: 'token-1', rating: 'up' },
      { reply: 'token-1', rating: 'down' },
      { reply: 'token-1', rating: 'down', reason: 'outdated' },
    ]);
    // No contact: no link.
    expect(screen.queryByRole('link', { name: 'Contact us' })).toBeNull();
  });

  it('send with a Not helpful the numbers of the sources the reply cites, and say Thanks once the vote is counted', async () => {
    const { user, fake, posted } = renderChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Which leaves?{Enter}');
    const sources = ['compost', 'bins', 'mulch'].map((page, index) => ({
      n: index + 1,
      title: page,
      url: `https://shop.example/${page}`,
    }));
    await act(async () => fake.latest().sources(sources, { token: 'token-2' }));
    await act(async () => fake.latest().resolve('Spread it as mulch [3]; green and brown in equal parts [1] [3].'));
    const status = voteStatus();
    expect(status).toHaveTextContent('');

    await user.click(button('Not helpful'));
    await vi.waitFor(() => expect(status).toHaveTextContent('Thanks'));
    await user.click(button('Helpful'));
    const bodies = posted.mock.calls.map(([, sent]) => JSON.parse((sent as RequestInit).body as string));
    // [2] was given and not cited: not counted against; a Helpful counts against no page.
    expect(bodies).toEqual([
      { reply: 'token-2', rating: 'down', cited: [3, 1] },
      { reply: 'token-2', rating: 'up' },
    ]);
  });

  it.each([
    ['refused', () => Promise.resolve(new Response('{}', { status: 413 }))],
    ['not sent', () => Promise.reject(new TypeError('Failed to fetch'))],
  ])('say a vote the server %s could not be counted', async (_, answer) => {
    const { user, fake, posted } = renderChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi{Enter}');
    await act(async () => fake.latest().sources([], { token: 'token-3' }));
    await act(async () => fake.latest().resolve('A reply.'));
    posted.mockImplementationOnce(answer);
    await user.click(button('Helpful'));
    await vi.waitFor(() => expect(voteStatus()).toHaveTextContent('Your vote could not be counted.'));
    // Voting again, and counted this time: said so.
    await user.click(button('Not helpful'));
    await vi.waitFor(() => expect(voteStatus()).toHaveTextContent(/^Thanks$/));
  });

  it('are not offered for a reply without a token (direct mode)', async () => {
    const { user, fake } = renderChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi{Enter}');
    await act(async () => fake.latest().resolve('A reply.'));
    expect(button('Copy reply')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Helpful' })).toBeNull();
  });
});

describe('Contact us', () => {
  beforeAll(() => loadMarkdown());
  afterEach(() => {
    vi.restoreAllMocks();
    document.getElementById(PAGE_SETTINGS_ID)?.remove();
  });

  it('shows under an uncovered reply, and after a Not helpful, opening in a new tab', async () => {
    const { user, fake } = renderChat(CONTACT);
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Covered?{Enter}');
    await act(async () =>
      fake.latest().sources([{ n: 1, title: 'Returns', url: 'https://shop.example/r' }], { token: 'a' }),
    );
    await act(async () => fake.latest().resolve('Yes [1].'));
    expect(screen.queryByRole('link', { name: 'Contact us' })).toBeNull();
    await user.click(button('Not helpful'));
    const link = screen.getByRole('link', { name: 'Contact us' });
    expect(link).toHaveAttribute('href', CONTACT);
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');

    await user.click(button('Helpful'));
    expect(screen.queryByRole('link', { name: 'Contact us' })).toBeNull();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Uncovered?{Enter}');
    await act(async () => fake.latest().sources([], { token: 'b', uncovered: true }));
    await act(async () => fake.latest().resolve('The pages do not say.'));
    expect(screen.getAllByRole('link', { name: 'Contact us' })).toHaveLength(1);
  });
});
