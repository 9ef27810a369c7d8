// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { readLlmConfig } from './llm-config';

const ORIGIN = 'https://chat.example.test';

function env(vars: Partial<Record<`VITE_LLM_${string}`, string>> = {}): ImportMetaEnv {
  return { BASE_URL: '/', MODE: 'production', DEV: false, PROD: true, SSR: false, ...vars };
}

describe('readLlmConfig', () => {
  it('uses the same-origin proxy with a placeholder key and the defaults when no key is set', () => {
    expect(readLlmConfig(env(), ORIGIN)).toEqual({
      mode: 'proxy',
      baseURL: 'https://chat.example.test/api/llm/v1',
      apiKey: 'same-origin-proxy',
      model: 'Qwen/Qwen2.5-7B-Instruct',
      stream: true,
      timeoutMs: 30_000,
      slowMs: 8_000,
      maxTokens: 250,
      temperature: 0.7,
    });
  });

  it("reaches the proxy under the build's BASE_PATH", () => {
    expect(readLlmConfig({ ...env(), BASE_URL: '/assistant/' }, ORIGIN).baseURL).toBe(`${ORIGIN}/assistant/api/llm/v1`);
  });

  it('treats a blank key as no key, and ignores a base URL meant for the direct mode', () => {
    const config = readLlmConfig(
      env({ VITE_LLM_API_KEY: '  ', VITE_LLM_BASE_URL: 'https://provider.test/v1' }),
      ORIGIN,
    );
    expect(config).toMatchObject({ mode: 'proxy', baseURL: `${ORIGIN}/api/llm/v1`, apiKey: 'same-origin-proxy' });
  });

  it('calls the provider directly with the embedded key, trimmed, at the default provider', () => {
    expect(readLlmConfig(env({ VITE_LLM_API_KEY: ' test-key-not-real\n' }), ORIGIN)).toEqual({
      mode: 'direct',
      baseURL: 'https://router.huggingface.co/v1',
      apiKey: 'test-key-not-real',
      model: 'Qwen/Qwen2.5-7B-Instruct',
      stream: false,
      timeoutMs: 30_000,
      slowMs: 8_000,
      maxTokens: 250,
      temperature: 0.7,
    });
  });

  it('takes the base URL, model and timeout from the environment', () => {
    const config = readLlmConfig(
      env({
        VITE_LLM_API_KEY: 'test-key-not-real',
        VITE_LLM_BASE_URL: ' http://127.0.0.1:11434/v1 ',
        VITE_LLM_MODEL: ' mistralai/Mistral-7B-Instruct-v0.3 ',
        VITE_LLM_TIMEOUT_MS: '12000',
      }),
      ORIGIN,
    );
    expect(config).toMatchObject({
      mode: 'direct',
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'mistralai/Mistral-7B-Instruct-v0.3',
      timeoutMs: 12_000,
    });
  });

  it('takes the model and timeout in proxy mode too', () => {
    const config = readLlmConfig(env({ VITE_LLM_MODEL: 'other/model', VITE_LLM_TIMEOUT_MS: '5000' }), ORIGIN);
    expect(config).toMatchObject({ mode: 'proxy', model: 'other/model', timeoutMs: 5_000 });
  });

  it('falls back to the default model when the variable is blank', () => {
    expect(readLlmConfig(env({ VITE_LLM_MODEL: '   ' }), ORIGIN).model).toBe('Qwen/Qwen2.5-7B-Instruct');
  });

  it.each([
    ['empty', ''],
    ['not a number', 'soon'],
    ['zero', '0'],
    ['negative', '-500'],
    ['infinite', 'Infinity'],
    ['not a whole number of milliseconds', '0.5'],
    // Timers overflow past 2^31 - 1 ms and fire at once: every request would time out immediately.
    ['beyond what a timer can wait', '1e10'],
  ])('falls back to the default timeout when the value is %s', (_, value) => {
    expect(readLlmConfig(env({ VITE_LLM_TIMEOUT_MS: value }), ORIGIN).timeoutMs).toBe(30_000);
  });

  it('accepts the longest timeout a timer can wait', () => {
    expect(readLlmConfig(env({ VITE_LLM_TIMEOUT_MS: '2147483647' }), ORIGIN).timeoutMs).toBe(2_147_483_647);
  });

  it("streams by default through the proxy, and not in direct mode, where the request stays the spec's", () => {
    expect(readLlmConfig(env(), ORIGIN).stream).toBe(true);
    expect(readLlmConfig(env({ VITE_LLM_API_KEY: 'test-key-not-real' }), ORIGIN).stream).toBe(false);
  });

  it.each([
    ['true', 'direct', true],
    [' TRUE ', 'direct', true],
    ['false', 'proxy', false],
    ['False', 'proxy', false],
    ['yes', 'proxy', true],
    ['1', 'direct', false],
    ['', 'proxy', true],
  ] as const)(
    'reads VITE_LLM_STREAM=%j in %s mode as %s (anything but true/false keeps the default)',
    (value, mode, expected) => {
      const key = mode === 'direct' ? { VITE_LLM_API_KEY: 'test-key-not-real' } : {};
      expect(readLlmConfig(env({ ...key, VITE_LLM_STREAM: value }), ORIGIN).stream).toBe(expected);
    },
  );

  it('takes the slow-reply hint delay from VITE_LLM_SLOW_MS, falling back to 8 s on a bad value', () => {
    expect(readLlmConfig(env({ VITE_LLM_SLOW_MS: '2500' }), ORIGIN).slowMs).toBe(2_500);
    expect(readLlmConfig(env({ VITE_LLM_SLOW_MS: 'soon' }), ORIGIN).slowMs).toBe(8_000);
  });
});
