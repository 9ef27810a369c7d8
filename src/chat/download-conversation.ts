import type { ChatMessage } from '../../machines/chat-machine';
import { citedInOrder } from '../markdown/citations';
import { t } from '../text';

/**
 * The conversation as Markdown, for the visitor's own copy: the date, then each message under who wrote it, the
 * sources a reply cites as links after it. Made here in the browser: nothing is sent anywhere.
 */
export function conversationMarkdown(messages: readonly ChatMessage[], title: string, date: Date): string {
  const day = date.toISOString().slice(0, 10);
  const parts = [`# ${title}`, day];
  for (const { sender, text, sources } of messages) {
    if (text === '') continue;
    parts.push(`**${t(sender === 'user' ? 'you' : 'assistant')}**\n\n${text}`);
    const cited = citedInOrder(text, sources ?? []).sort((a, b) => a.n - b.n);
    if (cited.length > 0) {
      parts.push(`${t('sources')}:\n\n${cited.map(({ n, title: name, url }) => `${n}. [${name}](${url})`).join('\n')}`);
    }
  }
  return `${parts.join('\n\n')}\n`;
}

/** Saves `markdown` as a file through a link to a blob of it: the browser's own download, with no request. */
export function saveMarkdown(markdown: string, date: Date): void {
  const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `conversation-${date.toISOString().slice(0, 10)}.md`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
