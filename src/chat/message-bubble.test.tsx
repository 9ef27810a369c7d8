import { ChakraProvider } from '@chakra-ui/react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES } from '../../locales/catalogues';
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
    const { container } = renderBubble({ text: 'Some **bold**', sender: 'bot', status: 'answer' });
    expect(container.querySelector('[data-sender="bot"]')?.textContent).toBe('Some **bold**');
  });

  describe('with the renderer loaded', () => {
    beforeAll(() => loadMarkdown());

    it('renders a bot reply as Markdown, with a Copy button once complete', () => {
      renderBubble({ text: 'Some **bold**', sender: 'bot', status: 'answer' });
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

    it("lists the reply's sources under it and links its [n] to them, never to an address the model wrote", () => {
      const sources = [
        { n: 1, title: '<img src=x onerror=alert(1)> Returns', url: 'https://www.example.com/help/returns' },
        { n: 2, title: 'Hours', url: 'https://shop.example.com:8443/hours' },
      ];
      const { container } = renderBubble({
        text: 'See [1] and [3], or [the form](https://evil.example/steal) and <https://www.example.com/help/returns>. [2]',
        sender: 'bot',
        status: 'answer',
        sources,
      });

      const list = screen.getByRole('region', { name: 'Sources' });
      const links = [...list.querySelectorAll('a')];
      expect(links.map((a) => [a.textContent, a.getAttribute('href'), a.target, a.rel])).toEqual([
        ['<img src=x onerror=alert(1)> Returns', sources[0].url, '_blank', 'noopener noreferrer'],
        ['Hours', sources[1].url, '_blank', 'noopener noreferrer'],
      ]);
      expect(list.textContent).toContain('(www.example.com)');
      expect(list.textContent).toContain('(shop.example.com:8443)');
      expect(container.querySelector('img')).toBeNull();

      const reply = container.querySelector('[data-sender="bot"]');
      const replyLinks = [...(reply?.querySelectorAll('a') ?? [])].map((a) => [a.textContent, a.getAttribute('href')]);
      expect(replyLinks).toEqual([
        ['[1]', sources[0].url],
        ['https://www.example.com/help/returns', sources[0].url],
        ['[2]', sources[1].url],
      ]);
      expect(reply?.textContent).toContain('[3]');
      expect(reply?.textContent).toContain('the form (https://evil.example/steal)');
    });

    it('copies a reply with the sources it cites after it', async () => {
      const user = userEvent.setup();
      renderBubble({
        text: 'Thirty days [1].',
        sender: 'bot',
        status: 'answer',
        sources: [
          { n: 1, title: 'Returns', url: 'https://www.example.com/help/returns' },
          { n: 2, title: 'Hours', url: 'https://www.example.com/help/hours' },
        ],
      });
      await user.click(screen.getByRole('button', { name: 'Copy reply' }));
      expect(await navigator.clipboard.readText()).toBe(
        'Thirty days [1].\n\nSources:\n[1] Returns — https://www.example.com/help/returns',
      );
    });

    it('keeps Copy beside the bubble it copies, the Sources list after it', () => {
      const { container } = renderBubble({
        text: 'Thirty days [1].',
        sender: 'bot',
        status: 'answer',
        sources: [{ n: 1, title: 'Returns', url: 'https://www.example.com/help/returns' }],
      });
      const order = [
        container.querySelector('[data-sender="bot"]'),
        screen.getByRole('button', { name: 'Copy reply' }),
        screen.getByRole('region', { name: 'Sources' }),
      ];
      for (const [earlier, later] of [order.slice(0, 2), order.slice(1)]) {
        expect(earlier?.compareDocumentPosition(later as Node)).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
      }
    });

    it('shows no Sources list for a reply without sources', () => {
      renderBubble({ text: 'See [1].', sender: 'bot', status: 'answer' });
      expect(screen.queryByRole('region', { name: 'Sources' })).toBeNull();
      expect(screen.queryByRole('link')).toBeNull();
    });

    // Known by its status, not its text: in another language the machine's own texts stay plain all the same.
    it.each([
      [NO_CONTENT_MESSAGE, 'empty'],
      [ERROR_MESSAGE, 'failed'],
      [CATALOGUES.de.noContent, 'empty'],
      [CATALOGUES.de.error, 'failed'],
    ] as const)('keeps "%s" (%s) as plain text, without Copy', (text, status) => {
      const { container } = renderBubble({ text, sender: 'bot', status });
      expect(container.querySelector('[data-sender="bot"]')?.innerHTML).toBe(text);
      expect(screen.queryByRole('button', { name: 'Copy reply' })).toBeNull();
    });

    it("shows a reply that happens to read like the machine's own text as a reply, with Copy", () => {
      renderBubble({ text: ERROR_MESSAGE, sender: 'bot', status: 'answer' });
      expect(screen.getByRole('button', { name: 'Copy reply' })).toBeInTheDocument();
    });
  });
});
