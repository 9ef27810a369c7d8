// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { CATALOGUES } from '../../locales/catalogues';
import { chatMachine } from '../../machines/chat-machine';
import { parseAssistantConfig } from '../../server/settings/assistant-config';
import { proxyHarness } from '../../testing/proxy-app';
import { createFetchReply, replyDelays } from './fetch-reply';
import { readLlmConfig } from './llm-config';

// The history a German page sends: the real machine with the German catalogue's texts, the real openai client over
// real HTTP to the real proxy (with the site's `history`), in front of the fake provider. The machine's own texts for
// an empty or failed reply are the visitor's language, and neither ever reaches the model as an earlier answer.
const { provider, start } = await proxyHarness();

const GERMAN = CATALOGUES.de;

async function germanChat(stream: boolean) {
  const { url } = await start({ assistant: parseAssistantConfig('history: 3', 'test.yaml', { direct: false }) });
  const config = readLlmConfig(
    { BASE_URL: '/', MODE: 'test', DEV: false, PROD: true, SSR: false, VITE_LLM_STREAM: String(stream) },
    url,
  );
  const actor = createActor(
    chatMachine.provide({ actors: { fetchReply: createFetchReply(config) }, delays: replyDelays(config) }),
    { input: { history: 3, statusTexts: { noContent: GERMAN.noContent, error: GERMAN.error } } },
  ).start();
  return async (text: string) => {
    actor.send({ type: 'message.submit', text });
    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 4_000 });
    return actor.getSnapshot().context.messages.at(-1);
  };
}

describe('history on a page in German', () => {
  it.each([false, true])(
    'sends the earlier answers only, never "Keine Antwort erhalten" nor the German error (stream: %s)',
    async (stream) => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const ask = await germanChat(stream);
      provider.queue({ content: 'Ja, in drei Tagen.' }, { content: '' }, { status: 500 }, { content: 'Ja.' });

      expect(await ask('Liefern Sie nach Norwegen?')).toMatchObject({ text: 'Ja, in drei Tagen.', status: 'answer' });
      expect(await ask('Und nach Island?')).toEqual({ text: GERMAN.noContent, sender: 'bot', status: 'empty' });
      expect(await ask('Und nach Grönland?')).toEqual({ text: GERMAN.error, sender: 'bot', status: 'failed' });
      expect(await ask('Und nach Schweden?')).toMatchObject({ text: 'Ja.', status: 'answer' });

      const answered = [
        { role: 'user', content: 'Liefern Sie nach Norwegen?' },
        { role: 'assistant', content: 'Ja, in drei Tagen.' },
      ];
      expect(provider.requests.map((request) => (request.body as { messages: unknown }).messages)).toEqual([
        [{ role: 'user', content: 'Liefern Sie nach Norwegen?' }],
        [...answered, { role: 'user', content: 'Und nach Island?' }],
        [...answered, { role: 'user', content: 'Und nach Grönland?' }],
        [...answered, { role: 'user', content: 'Und nach Schweden?' }],
      ]);
      const sent = JSON.stringify(provider.requests.map((request) => request.body));
      expect(sent).not.toContain(GERMAN.noContent);
      expect(sent).not.toContain(GERMAN.error);
    },
  );
});
