// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { createFetchReply } from './fetch-reply';
import { readLlmConfig } from './llm-config';

// A request chunk whose download never finishes, as on a connection that stalls.
vi.mock('./request-reply', () => new Promise(() => {}));

describe('the reply timeout', () => {
  it('counts a stalled download of the request code, so the chat cannot wait forever', async () => {
    const config = readLlmConfig(
      { VITE_LLM_API_KEY: 'test-key-not-real', VITE_LLM_TIMEOUT_MS: '200' } as unknown as ImportMetaEnv,
      'http://127.0.0.1',
    );
    const actor = createActor(createFetchReply(config), { input: { text: 'Hello' } });
    const started = performance.now();
    actor.start();

    await expect(toPromise(actor)).rejects.toThrow('did not load in time');
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
