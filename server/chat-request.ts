import { MAX_TOKENS, TEMPERATURE } from '../contract/llm.ts';

/** The only request the proxy forwards: the app's one-user-message chat completion, rebuilt field by field. */
export interface ChatRequest {
  model: string;
  messages: [{ role: 'user'; content: string }];
  max_tokens: number;
  temperature: number;
  stream?: true;
  /** Asked with every stream: the provider's token count then comes as a last chunk, for the spend cap and metrics. */
  stream_options?: { include_usage: true };
}

/** The outcome of {@link parseChatRequest}: the request to send upstream, or why the body was refused. */
export type ParsedChatRequest = { ok: true; request: ChatRequest } | { ok: false; reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a browser's chat-completion body and builds the upstream body from it.
 *
 * The upstream body is built from scratch rather than passed through, so a visitor cannot add fields the site owner
 * pays for or did not choose (`n`, `tools`, `logprobs`, a longer history, another model):
 * - `model` is overridden with `model` (the server's `LLM_MODEL`), not rejected. The app's model is fixed at build
 *   time (`VITE_LLM_MODEL`) and may drift from the server's setting; rejecting would turn that drift into a broken
 *   chat for every visitor, while overriding still guarantees that the token is only ever spent on the pinned model.
 * - `max_tokens` is clamped to the spec's 250 (and defaults to it); `temperature` is kept when valid (0 to 2).
 * - `messages` must be exactly one `user` message with non-blank string content, as the app sends.
 */
export function parseChatRequest(body: unknown, model: string): ParsedChatRequest {
  if (!isRecord(body)) return { ok: false, reason: 'The body must be a JSON object.' };
  const { messages, max_tokens: maxTokens, temperature, stream } = body;

  if (body.model !== undefined && typeof body.model !== 'string') {
    return { ok: false, reason: '`model` must be a string.' };
  }
  if (!Array.isArray(messages) || messages.length !== 1) {
    return { ok: false, reason: '`messages` must hold exactly one user message.' };
  }
  const [message] = messages;
  if (!isRecord(message) || message.role !== 'user') {
    return { ok: false, reason: '`messages` must hold exactly one user message.' };
  }
  if (typeof message.content !== 'string' || message.content.trim() === '') {
    return { ok: false, reason: 'The user message must have non-empty text content.' };
  }
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
    return { ok: false, reason: '`max_tokens` must be a positive integer.' };
  }
  if (temperature !== undefined && (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))) {
    return { ok: false, reason: '`temperature` must be a number from 0 to 2.' };
  }
  if (stream !== undefined && typeof stream !== 'boolean') {
    return { ok: false, reason: '`stream` must be a boolean.' };
  }

  const request: ChatRequest = {
    model,
    messages: [{ role: 'user', content: message.content }],
    max_tokens: Math.min((maxTokens as number | undefined) ?? MAX_TOKENS, MAX_TOKENS),
    temperature: (temperature as number | undefined) ?? TEMPERATURE,
  };
  if (stream) {
    request.stream = true;
    request.stream_options = { include_usage: true };
  }
  return { ok: true, request };
}
