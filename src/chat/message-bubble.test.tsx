import { ChakraProvider } from '@chakra-ui/react';
import { render, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_MESSAGE, NO_CONTENT_MESSAGE } from '../../machines/chat-machine';
import { loadMarkdown } from '../markdown/load-markdown';
import { getSystem } from '../system';
import { MessageBubble, type MessageBubbleProps } from './message-bubble';

function renderBubble(props: MessageBubbleProps) {
  return render(
    <ChakraProvider value={getSystem()}>
      <MessageBubble {...props} />
    </ChakraProvider>,
  );
}

describe('MessageBubble', () => {
  it('shows a reply as plain text until the Markdown renderer has loaded', () => {
    // Not loaded in this test file yet: the first render is the fallback.
    const { container } = renderBubble({ text: 'Some **bold**', sender: 'bot' });
    expect(container.querySelector('[data-sender="bot"]')?.textContent).toBe('Some **bold**');
  });

  describe('with the renderer loaded', () => {
    beforeAll(() => loadMarkdown());

    it('renders a bot reply as Markdown, with a Copy button once complete', () => {
      renderBubble({ text: 'Some **bold**', sender: 'bot' });
      expect(screen.getByText('bold').tagName).toBe('STRONG');
      expect(screen.getByRole('button', { name: 'Copy reply' })).toBeInTheDocument();
    });

    it('has no Copy button while the reply streams in', () => {
      renderBubble({ text: 'Some **bo', sender: 'bot', streaming: true });
      expect(screen.getByText('bo').tagName).toBe('STRONG');
      expect(screen.queryByRole('button', { name: 'Copy reply' })).toBeNull();
    });

    it("keeps the visitor's message exactly as typed", () => {
      const { container } = renderBubble({ text: '**not bold** <b>x</b>', sender: 'user' });
      expect(container.querySelector('[data-sender="user"]')?.textContent).toBe('**not bold** <b>x</b>');
      expect(container.querySelector('strong, b')).toBeNull();
    });

    it.each([NO_CONTENT_MESSAGE, ERROR_MESSAGE])('keeps "%s" as plain text, without Copy', (text) => {
      const { container } = renderBubble({ text, sender: 'bot' });
      expect(container.querySelector('[data-sender="bot"]')?.innerHTML).toBe(text);
      expect(screen.queryByRole('button', { name: 'Copy reply' })).toBeNull();
    });
  });
});
