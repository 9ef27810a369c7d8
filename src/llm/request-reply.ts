import { APIError, OpenAI } from 'openai';
import { ACTIONS_CONFIRM_PATH, ACTIONS_OBJECT } from '../../contract/actions';
import { LIMIT_ERROR_CODES, type ReplySource } from '../../contract/llm';
import { isReplySource, SOURCES_OBJECT } from '../../contract/reply-sources';
import {
  type ConfirmRefusal,
  type Exchange,
  type FetchReplyInput,
  type FetchReplyOutput,
  type LimitReason,
  ReplyLimitedError,
  type ReplyToken,
} from '../../machines/chat-machine';
import { type LlmConfig, readLlmConfig } from './llm-config';
import { readActions } from './read-actions';
import { serverPath } from './server-path';

// This module and the openai client form one chunk that loads after the first paint (see fetch-reply.ts). Of the app's
// own code it imports at run time only what the app's chunk holds already (the machine, the contract, fetch-reply.ts)
// and the configuration (llm-config.ts), which only the request reads, so that nothing is split off into a third
// chunk.

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

let pageConfig: LlmConfig | undefined;

/** The page's own configuration, from the build-time `VITE_LLM_*` variables: read once, on the first request. */
export function pageLlmConfig(): LlmConfig {
  pageConfig ??= readLlmConfig(import.meta.env, window.location.origin);
  return pageConfig;
}

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

/**
 * One chat-completion request for the machine's input (the visitor's latest message, its history, whether it is the
 * first). Resolves with the first choice's content, or `null` when the reply has none; rejects on any failure. With
 * `config.stream` the reply is asked for as a stream, each piece going to the invoking machine (`input.parent`) as it
 * arrives, and the whole text is the result. Deadlines are the chat machine's: it aborts `signal` when one passes.
 */
export async function requestReply(
  input: FetchReplyInput,
  signal: AbortSignal,
  config: LlmConfig,
): Promise<FetchReplyOutput> {
  // Only the page's own server gives sources and reply tokens: in direct mode the provider's answer could say anything.
  const proxied = config.mode === 'proxy';
  const { parent } = input;
  const handlers = {
    // A streamed reply's pieces go to the invoking machine as they come, and the sources before the reply.
    onDelta: (text: string) => parent.send({ type: 'reply.delta', text }),
    onSources: (sources: ReplySource[], token?: ReplyToken) => {
      if (proxied) parent.send({ type: 'reply.sources', sources, token });
    },
    onActions: (value: unknown) => {
      const actions = proxied ? readActions(value) : undefined;
      if (actions) parent.send({ type: 'reply.sources', actions });
    },
    // What the request carries besides the spec's payload.
    extra: {
      // The host page, with the site's `page_context` in the embed's frame; the server checks it and quotes it.
      ...(input.hostPage?.current ? { page_context: input.hostPage.current } : {}),
      // What only the page's own server is sent; the spec's direct request carries nothing more. The server counts
      // conversations by their first message; with the card's language (the server chose it for the visitor), its
      // retrieval asks for search words in the pages' language when it differs; a confirmation is bound to the
      // conversation's id.
      ...(proxied
        ? {
            ...(input.first ? { first_message: true } : {}),
            ...(input.language ? { language: input.language } : {}),
            conversation: conversationOf(parent),
            ...(input.confirm ? { confirmation: input.confirm } : {}),
            // The host page's visitor token, for the site's actions that need it (never given to the model).
            ...(input.hostPage?.identity ? { identity: input.hostPage.identity } : {}),
          }
        : {}),
    },
    // The visitor's Confirm goes to the actions' address, which replies as the chat does.
    path: proxied && input.confirm ? new URL(serverPath(ACTIONS_CONFIRM_PATH), config.baseURL).href : undefined,
  };
  try {
    return await request(input.text, signal, config, handlers, input.history ?? []);
  } catch (error) {
    // Only the page's own server has these limits: in direct mode a 429 is the provider's, whatever its code.
    throw (proxied ? (limitRefusal(error) ?? confirmRefusal(error, input.confirm)) : undefined) ?? error;
  }
}

// Each chat's id for the page's own server, which binds a confirmation to it: random, one per chat (the invoking
// machine) for the life of the page, made here rather than in the machine so that the start-up chunk carries none of it.
const conversations = new WeakMap<object, string>();

function conversationOf(chat: object): string {
  let id = conversations.get(chat);
  if (!id) {
    // 128 random bits from getRandomValues, which (unlike randomUUID) needs no https.
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
    conversations.set(chat, id);
  }
  return id;
}

/** The server's refusal of a Confirm that the visitor can act on: too old (ask again), or the owner's API failed. */
function confirmRefusal(error: unknown, confirm: string | undefined): (Error & ConfirmRefusal) | undefined {
  if (!confirm || !(error instanceof APIError)) return undefined;
  const reason = ({ expired_token: 'expired', action_failed: 'failed' } as const)[String(error.code)];
  return (
    reason && Object.assign(new Error(`The server refused the Confirm: ${error.code}`), { confirmRefused: reason })
  );
}

const LIMIT_REASONS = Object.keys(LIMIT_ERROR_CODES) as LimitReason[];

/**
 * A 429 that the page's own server sent for one of its limits (known by its code, not its words), as the machine's
 * `ReplyLimitedError`; a provider's 429 (direct mode, or passed on by the proxy) stays an ordinary failure.
 */
function limitRefusal(error: unknown): ReplyLimitedError | undefined {
  if (!(error instanceof APIError) || error.status !== 429) return undefined;
  const reason = LIMIT_REASONS.find((name) => LIMIT_ERROR_CODES[name] === error.code);
  if (!reason) return undefined;
  const retryAfter = Number(error.headers?.get('retry-after'));
  // Without a usable Retry-After, a minute: the rate limit's window.
  return new ReplyLimitedError(reason, Number.isSafeInteger(retryAfter) && retryAfter > 0 ? retryAfter : 60);
}

/**
 * The site's pages the server gave the model, as it sent them (`SOURCES_OBJECT`): only well-formed entries, and only
 * web addresses, so that nothing else can ever become a link.
 */
export function readSources(value: unknown): ReplySource[] {
  return Array.isArray(value) ? value.filter(isReplySource) : [];
}

type ReplyHandlers = {
  onDelta: (text: string) => void;
  onSources: (sources: ReplySource[], token?: ReplyToken) => void;
  onActions: (value: unknown) => void;
  /** The body's fields besides the spec's payload (the host page; the rest for the page's own server only). */
  extra: Record<string, unknown>;
  /** Where the request goes instead of the chat's path. */
  path?: string;
};

/**
 * Hands the well-formed sources in the proxy's own fields (`SOURCES_OBJECT`'s event, or a whole reply), and the reply's
 * token, to `onSources`, if there are any.
 */
function offerSources(
  value: { sources?: unknown; reply?: unknown; uncovered?: unknown; actions?: unknown },
  handlers: ReplyHandlers,
) {
  if (value.actions !== undefined) handlers.onActions(value.actions);
  const sources = readSources(value.sources);
  const token =
    typeof value.reply === 'string' && value.reply !== ''
      ? { token: value.reply, ...(value.uncovered === true ? { uncovered: true as const } : {}) }
      : undefined;
  if (sources.length > 0 || token) handlers.onSources(sources, token);
}

async function request(
  text: string,
  signal: AbortSignal,
  config: LlmConfig,
  handlers: ReplyHandlers,
  history: readonly Exchange[],
): Promise<FetchReplyOutput> {
  const body = {
    model: config.model,
    // The earlier exchanges (only when the site allows history, in proxy mode), oldest first, then the latest message.
    messages: [
      ...history.flatMap(({ question, answer }) => [
        { role: 'user' as const, content: question },
        { role: 'assistant' as const, content: answer },
      ]),
      { role: 'user' as const, content: text },
    ],
    max_tokens: config.maxTokens,
    temperature: config.temperature,
    ...handlers.extra,
  };
  const client = clientFor(config);
  const options = { signal, ...(handlers.path ? { path: handlers.path } : {}) };
  if (!config.stream) {
    const completion = await client.chat.completions.create(body, options);
    // The client hands back a body it could not read as JSON (an event stream, an HTML error page) as text: that is
    // a failed call, not a reply without content.
    if (typeof completion !== 'object' || completion === null) {
      throw new Error(`The provider's answer is not a chat completion (${typeof completion})`);
    }
    offerSources(completion as object, handlers);
    // Whether a string is worth showing (empty, only white space) is the chat machine's decision.
    const content: unknown = completion.choices?.[0]?.message?.content;
    return typeof content === 'string' ? content : null;
  }

  const { data: stream, response } = await client.chat.completions
    .create({ ...body, stream: true }, options)
    .withResponse();
  // Asked for a stream, a provider that answers with anything else (a JSON body, an HTML page) has failed: reading it
  // as an empty stream would wrongly say that the reply had no content.
  if (!/^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '')) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`The provider's answer is not an event stream (${response.headers.get('content-type')})`);
  }
  let reply = '';
  const pieces = batchPieces(handlers.onDelta);
  try {
    for await (const chunk of stream) {
      // The proxy's own first event: the pages given to the model, before any piece.
      if ((chunk.object as string) === SOURCES_OBJECT) {
        offerSources(chunk as object, handlers);
        continue;
      }
      // And the actions' event, when the server called or proposed some.
      if ((chunk.object as string) === ACTIONS_OBJECT) {
        handlers.onActions(chunk);
        continue;
      }
      const piece: unknown = chunk.choices?.[0]?.delta?.content;
      if (typeof piece === 'string' && piece !== '') {
        reply += piece;
        pieces.add(piece);
      }
    }
  } finally {
    // Before the outcome: a reply that fails keeps every piece that had arrived.
    pieces.flush();
  }
  // An abort ends the loop quietly, as if the stream had ended: that is not a complete reply.
  signal.throwIfAborted();
  return reply === '' ? null : reply;
}

/**
 * Hands over the pieces that arrive in one task (one network read often holds dozens) as one, at the end of that
 * task: the page then renders once per read rather than once per piece, and a fast provider's first words are
 * painted without waiting for a render of every piece that came with them. Pieces in later reads follow as they come.
 */
export function batchPieces(onDelta: (text: string) => void) {
  let pending = '';
  const channel = new MessageChannel();
  const flush = () => {
    const text = pending;
    pending = '';
    if (text !== '') onDelta(text);
  };
  channel.port1.onmessage = flush;
  return {
    add(piece: string) {
      if (pending === '') channel.port2.postMessage(null);
      pending += piece;
    },
    flush() {
      flush();
      channel.port1.close();
    },
  };
}
