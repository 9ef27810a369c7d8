import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SETTINGS, PAGE_SETTINGS_ID, type PageSettings } from '../contract/page-settings';
import { chatMachine } from '../machines/chat-machine';
import { createControllableFetchReply } from '../testing/controllable-reply';
import { App } from './app';
import { loadMarkdown } from './markdown/load-markdown';
import { readPageSettings } from './page-settings';

function renderSite(settings: Partial<PageSettings>) {
  const fake = createControllableFetchReply();
  render(
    <App
      logic={chatMachine.provide({ actors: { fetchReply: fake.logic } })}
      settings={{ ...DEFAULT_PAGE_SETTINGS, ...settings }}
    />,
  );
  return { fake, user: userEvent.setup({ delay: null }) };
}

describe("the site's settings on the card", () => {
  it('titles the card with the site title', () => {
    renderSite({ title: 'Acme Help <desk>' });
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(/^Acme Help <desk>$/);
  });

  it('shows the welcome first, as Markdown with no Copy button (it is no reply), and never sends it', async () => {
    await loadMarkdown();
    const { fake, user } = renderSite({ welcome: '**Hello!** See [our shop](https://shop.example).' });
    const log = screen.getByRole('log', { name: 'Conversation' });

    expect(within(log).getByText('Hello!').tagName).toBe('STRONG');
    expect(within(log).getByRole('link', { name: /our shop/ })).toHaveAttribute('href', 'https://shop.example/');
    expect(within(log).queryByRole('button', { name: 'Copy reply' })).toBeNull();

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi{Enter}');
    expect(fake.latest().input.text).toBe('Hi');
    expect(fake.latest().input).not.toHaveProperty('history');
    await act(async () => fake.latest().resolve('**Welcome** back'));
    expect(within(log).getAllByRole('button', { name: 'Copy reply' })).toHaveLength(1);
  });

  it('sends a starter chosen with the keyboard, then offers the starters no more', async () => {
    const { fake, user } = renderSite({ starters: ['What do you sell?', 'Where are you?'] });
    const group = screen.getByRole('group', { name: 'Suggested questions' });

    await user.tab();
    await user.tab();
    expect(within(group).getByRole('button', { name: 'What do you sell?' })).toHaveFocus();
    await user.keyboard('{Enter}');

    expect(fake.latest().input.text).toBe('What do you sell?');
    expect(screen.queryByRole('group', { name: 'Suggested questions' })).toBeNull();
  });
});

describe('reading the settings from the served page', () => {
  it('reads the JSON block, and keeps the spec without one', () => {
    expect(readPageSettings(document)).toBe(DEFAULT_PAGE_SETTINGS);

    const block = document.createElement('script');
    block.type = 'application/json';
    block.id = PAGE_SETTINGS_ID;
    block.textContent = JSON.stringify({ title: 'Acme', starters: ['Hi?'], history: 2 });
    document.head.append(block);
    try {
      expect(readPageSettings(document)).toEqual({ title: 'Acme', starters: ['Hi?'], history: 2 });
    } finally {
      block.remove();
    }
  });
});
