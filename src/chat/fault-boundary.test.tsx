import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PAGE_SETTINGS } from '../../contract/page-settings';
import { chatMachine } from '../../machines/chat-machine';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import { App } from '../app';
import { loadMarkdown } from '../markdown/load-markdown';

// The real renderer, made to throw on cue: a stand-in for any reply that finds a bug in it. The Copy button likewise,
// for a fault in a message outside its rendered text.
const RENDER_FAULT = 'throws while rendering';
const COPY_FAULT = 'throws in its Copy button';
vi.mock('../markdown/render-markdown', async (importOriginal) => {
  const original = await importOriginal<typeof import('../markdown/render-markdown')>();
  return {
    ...original,
    renderMarkdown: (source: string, partial?: boolean) => {
      if (source.includes(RENDER_FAULT)) throw new RangeError('Maximum call stack size exceeded');
      return original.renderMarkdown(source, partial);
    },
  };
});
vi.mock('../markdown/copy-button', async (importOriginal) => {
  const original = await importOriginal<typeof import('../markdown/copy-button')>();
  return {
    ...original,
    CopyButton: (props: Parameters<typeof original.CopyButton>[0]) => {
      if (props.text.includes(COPY_FAULT)) throw new Error('a fault in the Copy button');
      return original.CopyButton(props);
    },
  };
});

function renderChat() {
  const fake = createControllableFetchReply();
  const user = userEvent.setup({ delay: null });
  render(
    <App
      logic={chatMachine.provide({
        actors: { fetchReply: fake.logic },
        delays: { slowHint: 60_000, replyTimeout: 60_000 },
      })}
      settings={DEFAULT_PAGE_SETTINGS}
    />,
  );
  return { user, fake };
}

const log = () => screen.getByRole('log', { name: 'Conversation' });
const bubbles = () => Array.from(log().querySelectorAll<HTMLElement>('[data-sender="bot"]'), (bubble) => bubble);

describe('a fault while showing one message', () => {
  beforeAll(() => loadMarkdown());

  it('leaves that reply as plain text and the card working: Stop, Retry, the box and Send', async () => {
    // React reports a caught error on the console too; the boundary adds its own line.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, fake } = renderChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'First{Enter}');
    const faulty = `Some **bold**, then it ${RENDER_FAULT}.`;
    await act(async () => fake.latest().delta('Some **bold**'));
    expect(within(log()).getByText('bold').tagName).toBe('STRONG');
    await act(async () => fake.latest().delta(faulty.slice('Some **bold**'.length)));
    // Streaming on as plain text, with Stop still there.
    expect(bubbles().at(-1)?.textContent).toBe(faulty);
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(bubbles().at(-1)?.textContent).toBe(faulty);
    expect(screen.getByRole('button', { name: 'Retry' })).toBeEnabled();

    // Retried, the next reply is rendered again.
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await act(async () => fake.latest().resolve('A **fine** retry.'));
    expect(within(bubbles().at(-1) as HTMLElement).getByText('fine').tagName).toBe('STRONG');

    // A faulty reply that arrives whole, then a fine one after it.
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Second');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await act(async () => fake.latest().resolve(faulty));
    expect(bubbles().at(-1)?.textContent).toBe(faulty);
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Third{Enter}');
    await act(async () => fake.latest().resolve('Another **good** one.'));
    expect(within(bubbles().at(-1) as HTMLElement).getByText('good').tagName).toBe('STRONG');
    expect(bubbles().map((bubble) => bubble.textContent)).toEqual(['A fine retry.', faulty, 'Another good one.']);
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeEnabled();
    expect(logged).toHaveBeenCalledWith(
      'A message could not be shown as rendered',
      expect.any(RangeError),
      expect.anything(),
    );
    logged.mockRestore();
  });

  it('keeps the message when something beside its text fails', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, fake } = renderChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi{Enter}');
    await act(async () => fake.latest().resolve(`A **reply** that ${COPY_FAULT}.`));
    expect(bubbles().at(-1)?.textContent).toBe(`A reply that ${COPY_FAULT}.`);
    expect(screen.queryByRole('button', { name: 'Copy reply' })).toBeNull();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Again{Enter}');
    await act(async () => fake.latest().resolve('Fine.'));
    expect(screen.getByRole('button', { name: 'Copy reply' })).toBeInTheDocument();
    logged.mockRestore();
  });
});
