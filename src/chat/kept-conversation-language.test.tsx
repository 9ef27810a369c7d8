import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CATALOGUES } from '../../locales/catalogues';
import { chatMachine } from '../../machines/chat-machine';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import { App } from '../app';
import { loadMarkdown } from '../markdown/load-markdown';
import { setCatalogue } from '../text';
import * as keeping from './persist-tab';

// The conversation kept for the tab (`persist: tab`) when the next page speaks another language: the server chooses
// each page's language, so a visitor may go from a German page to an English one. A failed reply is known by its
// status, not its German text: the English page still offers Retry for it.

function renderKeepingApp() {
  const fake = createControllableFetchReply();
  const user = userEvent.setup({ delay: null });
  const view = render(<App logic={chatMachine.provide({ actors: { fetchReply: fake.logic } })} keeping={keeping} />);
  return { fake, user, view };
}

afterEach(() => {
  setCatalogue(CATALOGUES.en);
  sessionStorage.clear();
  vi.restoreAllMocks();
});

describe('a kept conversation across a change of language', () => {
  it('keeps its Retry, and the failure stays plain text, when the next page speaks another language', async () => {
    await loadMarkdown();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    setCatalogue(CATALOGUES.de);
    const german = renderKeepingApp();
    await german.user.type(screen.getByRole('textbox', { name: 'Nachricht' }), 'Liefern Sie nach Norwegen?{Enter}');
    await act(async () => german.fake.latest().reject(new Error('down')));
    expect(screen.getByText(CATALOGUES.de.error)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Erneut versuchen' })).toBeEnabled();
    german.view.unmount();

    setCatalogue(CATALOGUES.en);
    const english = renderKeepingApp();
    // What was said stays as it was said; the page around it is English.
    expect(screen.getByText(CATALOGUES.de.error)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Copy reply' })).toBeNull();
    await english.user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(english.fake.calls.map((call) => call.input.text)).toEqual(['Liefern Sie nach Norwegen?']);
    await act(async () => english.fake.latest().resolve('Ja, in drei Tagen.'));
    expect(screen.queryByText(CATALOGUES.de.error)).toBeNull();
    expect(screen.getByText('Ja, in drei Tagen.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });
});
