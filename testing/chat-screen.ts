import { screen } from '@testing-library/react';

/** The card's parts as a visitor finds them (their roles and English names), for the rendered app's tests. */
export const chatScreen = {
  log: () => screen.getByRole('log', { name: 'Conversation' }),
  input: () => screen.getByRole('textbox', { name: 'Message' }),
  send: () => screen.getByRole('button', { name: 'Send' }),
  stop: () => screen.queryByRole('button', { name: 'Stop' }),
  retry: () => screen.queryByRole('button', { name: 'Retry' }),
  typing: () => screen.queryByTestId('typing-indicator'),
};
