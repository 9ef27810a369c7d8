import type { OpenAI } from 'openai';
import { fromPromise } from 'xstate';
import { MAX_TOKENS, TEMPERATURE } from '../../contract/llm';
import type { FetchReplyInput, FetchReplyOutput } from '../../machines/chat-machine';
import type { LlmConfig } from './llm-config';

// The client's telemetry headers are not in most providers' CORS allow-lists, and tell a site's visitors nothing.
const STAINLESS_HEADERS = [
  'Arch',
  'Lang',
  'OS',
  'Package-Version',
  'Retry-Count',
  'Runtime',
  'Runtime-Version',
  'Timeout',
];
const withoutTelemetry = Object.fromEntries(STAINLESS_HEADERS.map((name) => [`X-Stainless-${name}`, null]));

const clients = new WeakMap<LlmConfig, Promise<OpenAI>>();

/**
 * The openai client is large and not needed for the first paint, so it is loaded on demand (and prefetched when
 * the page is idle). One client per configuration.
 */
export function loadClient(config: LlmConfig): Promise<OpenAI> {
  let client = clients.get(config);
  if (!client) {
    client = import('openai').then(
      ({ OpenAI }) =>
        new OpenAI({
          baseURL: config.baseURL,
          apiKey: config.apiKey,
          timeout: config.timeoutMs,
          // One visitor message is at most one request: no silent retries.
          maxRetries: 0,
          dangerouslyAllowBrowser: true,
          defaultHeaders: withoutTelemetry,
        }),
    );
    // A failed download must not poison every later attempt.
    client.catch(() => clients.delete(config));
    clients.set(config, client);
  }
  return client;
}

/**
 * One chat-completion request for the visitor's latest message. Resolves with the first choice's content, or `null`
 * when the reply has none; rejects on any failure, including the whole exchange taking longer than the timeout.
 */
export async function requestReply(text: string, signal: AbortSignal, config: LlmConfig): Promise<FetchReplyOutput> {
  const client = await loadClient(config);
  const completion = await client.chat.completions.create(
    {
      model: config.model,
      messages: [{ role: 'user', content: text }],
      max_tokens: MAX_TOKENS,
      temperature: TEMPERATURE,
    },
    // The client's own timeout stops at the response headers; this one also covers a body that never ends.
    { signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]) },
  );
  const content: unknown = completion?.choices?.[0]?.message?.content;
  return typeof content === 'string' && content !== '' ? content : null;
}

/** The machine's `fetchReply` actor, bound to a configuration: `chatMachine.provide({ actors: { fetchReply } })`. */
export function createFetchReply(config: LlmConfig) {
  return fromPromise<FetchReplyOutput, FetchReplyInput>(({ input, signal }) =>
    requestReply(input.text, signal, config),
  );
}
