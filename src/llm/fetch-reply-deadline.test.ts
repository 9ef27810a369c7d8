// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { chatMachine } from '../../machines/chat-machine';
import { createFetchReply, replyDelays } from './fetch-reply';
import { readLlmConfig } from './llm-config';

// A request chunk whose download never finishes, as on a connection that stalls.
vi.mock('./request-reply', () => new Promise(() => {}));

describe('the reply deadline', () => {
  it('counts a stalled download of the request code, so the chat cannot wait forever', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const config = readLlmConfig(
      { BASE_URL: '/', VITE_LLM_TIMEOUT_MS: '200' } as unknown as ImportMetaEnv,
      'http://127.0.0.1',
    );
    const actor = createActor(
      chatMachine.provide({ actors: { fetchReply: createFetchReply(config) }, delays: replyDelays(config) }),
    );
    actor.start();
    actor.send({ type: 'draft.change', text: 'Hello' });
    actor.send({ type: 'message.submit' });
    const started = performance.now();

    await waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 10_000 });

    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(actor.getSnapshot().context.messages.at(-1)).toEqual({
      text: 'Error: Unable to get response',
      sender: 'bot',
      status: 'failed',
    });
    expect(consoleError).toHaveBeenCalledWith(
      'Chat request failed:',
      expect.objectContaining({ name: 'ReplyTimeoutError' }),
    );
  });
});
