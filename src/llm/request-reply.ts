import { OpenAI } from 'openai';
import type { FetchReplyOutput } from '../../machines/chat-machine';
import type { LlmConfig } from './llm-config';

// This module and the openai client form one chunk that loads after the first paint (see fetch-reply.ts). It imports
// nothing else of the app's at run time, so that nothing is split off into a third chunk.

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

const clients = new WeakMap<LlmConfig, OpenAI>();

function clientFor(config: LlmConfig): OpenAI {
  let client = clients.get(config);
  if (!client) {
    client = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      timeout: config.timeoutMs,
      // One visitor message is at most one request: no silent retries.
      maxRetries: 0,
      dangerouslyAllowBrowser: true,
      defaultHeaders: withoutTelemetry,
    });
    clients.set(config, client);
  }
  return client;
}

/** Aborts when either signal does. (`AbortSignal.any` is missing from Safari before 17.4 and Chrome before 116.) */
function eitherSignal(first: AbortSignal, second: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  for (const source of [first, second]) {
    if (source.aborted) abort();
    else source.addEventListener('abort', abort, { once: true });
  }
  const release = () => {
    for (const source of [first, second]) source.removeEventListener('abort', abort);
  };
  return { signal: controller.signal, release };
}

/**
 * One chat-completion request for the visitor's latest message. Resolves with the first choice's content, or `null`
 * when the reply has none; rejects on any failure, including `deadline` passing before the whole answer is in (the
 * caller starts it before loading this chunk, so that the download counts too).
 */
export async function requestReply(
  text: string,
  signal: AbortSignal,
  config: LlmConfig,
  deadline: AbortSignal = AbortSignal.timeout(config.timeoutMs),
): Promise<FetchReplyOutput> {
  // The client's own timeout stops at the response headers; the deadline also covers a body that never ends.
  const stop = eitherSignal(signal, deadline);
  try {
    const completion = await clientFor(config).chat.completions.create(
      {
        model: config.model,
        messages: [{ role: 'user', content: text }],
        max_tokens: config.maxTokens,
        temperature: config.temperature,
      },
      { signal: stop.signal },
    );
    // The client hands back a body it could not read as JSON (an event stream, an HTML error page) as text: that is
    // a failed call, not a reply without content.
    if (typeof completion !== 'object' || completion === null) {
      throw new Error(`The provider's answer is not a chat completion (${typeof completion})`);
    }
    // Whether a string is worth showing (empty, only white space) is the chat machine's decision.
    const content: unknown = completion.choices?.[0]?.message?.content;
    return typeof content === 'string' ? content : null;
  } catch (error) {
    // Otherwise the console would say only "Request was aborted", which reads like the visitor's doing.
    if (deadline.aborted && !signal.aborted) {
      throw new Error(`No complete reply within ${config.timeoutMs} ms`, { cause: error });
    }
    throw error;
  } finally {
    stop.release();
  }
}
