import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PAGE_SETTINGS } from '../../contract/page-settings';
import { chatMachine } from '../../machines/chat-machine';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import { App } from '../app';
import { loadReplyStatus } from './reply-status';

describe('New conversation and Download conversation, with no persist', () => {
  beforeAll(() => loadReplyStatus());
  afterEach(() => vi.restoreAllMocks());

  it('offers New conversation once there is a message, and the download once there is a reply, made with no request', async () => {
    const fetched = vi.spyOn(globalThis, 'fetch');
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:conversation';
    });
    URL.revokeObjectURL = vi.fn();
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const fake = createControllableFetchReply();
    const user = userEvent.setup({ delay: null });
    render(
      <App logic={chatMachine.provide({ actors: { fetchReply: fake.logic } })} settings={DEFAULT_PAGE_SETTINGS} />,
    );
    expect(screen.queryByRole('button', { name: 'New conversation' })).toBeNull();

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Where are you?{Enter}');
    expect(screen.getByRole('button', { name: 'New conversation' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Download conversation' })).toBeNull();
    await act(async () =>
      fake.latest().sources(
        [
          { n: 1, title: 'Find us', url: 'https://shop.example/where' },
          { n: 2, title: 'Hours', url: 'https://shop.example/hours' },
        ],
        { token: 't' },
      ),
    );
    await act(async () => fake.latest().resolve('On the corner [1].'));

    await user.click(screen.getByRole('button', { name: 'Download conversation' }));
    expect(clicked).toHaveBeenCalledTimes(1);
    expect(fetched).not.toHaveBeenCalled();
    const day = new Date().toISOString().slice(0, 10);
    // The sources the reply cites, not Hours, which it was given and did not use.
    expect(await blobs[0].text()).toBe(
      `# AI Assistant\n\n${day}\n\n**You:**\n\nWhere are you?\n\n**Assistant:**\n\nOn the corner [1].\n\n` +
        'Sources:\n\n1. [Find us](https://shop.example/where)\n',
    );

    await user.click(screen.getByRole('button', { name: 'New conversation' }));
    expect(screen.queryByText('Where are you?')).toBeNull();
    expect(screen.queryByRole('button', { name: 'New conversation' })).toBeNull();
  });
});
