import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { chatMachine } from '../../machines/chat-machine';
import { createControllableFetchReply } from '../../testing/controllable-reply';
import { App } from '../app';

describe('MessageList', () => {
  it('shows every message once, in order, across the groups it renders them in', async () => {
    const fake = createControllableFetchReply();
    render(<App logic={chatMachine.provide({ actors: { fetchReply: fake.logic } })} />);
    const input = screen.getByRole('textbox', { name: 'Message' });

    // 26 exchanges: 52 messages, past the first group of 50.
    const expected: string[] = [];
    for (let exchange = 1; exchange <= 26; exchange += 1) {
      fireEvent.change(input, { target: { value: `question ${exchange}` } });
      fireEvent.submit(input.closest('form') as HTMLFormElement);
      await act(async () => fake.latest().resolve(`answer ${exchange}`));
      expected.push(`question ${exchange}`, `answer ${exchange}`);
    }

    const log = screen.getByRole('log', { name: 'Conversation' });
    const shown = Array.from(log.querySelectorAll('[data-sender]'), (bubble) => bubble.textContent);
    expect(shown).toEqual(expected);
  });
});
