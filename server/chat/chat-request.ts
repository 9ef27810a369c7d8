import { MAX_TOKENS, type PageContext, type ReplySource, TEMPERATURE } from '../../contract/llm.ts';
import type { Material } from '../knowledge/knowledge.ts';
import { breakControlSequences } from './control-sequences.ts';
import { pageContextLine, readPageContext } from './page-context.ts';

/** A message of the conversation sent upstream. */
export interface UpstreamMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A tool round of the conversation (issue 49): the model's call of an action, then the server's result of it. */
export type ToolTurn =
  | {
      role: 'assistant';
      content: null;
      tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A request with its tool rounds. */
export type RoundRequest = ChatRequest<UpstreamMessage | ToolTurn>;

/**
 * The only request the proxy forwards: the app's chat completion, rebuilt field by field. Its messages are the site's
 * `instructions` as a `system` message (when set), the earlier exchanges (when the site allows `history`), then the
 * latest user message: with neither, the spec's single user message.
 */
export interface ChatRequest<Message = UpstreamMessage> {
  model: string;
  messages: Message[];
  max_tokens: number;
  temperature: number;
  stream?: true;
  /** Asked with every stream: the provider's token count then comes as a last chunk, for the spend cap and metrics. */
  stream_options?: { include_usage: true };
  /** The site's actions the model may call (server/actions/): strict schemas, one call at a time. */
  tools?: unknown[];
  parallel_tool_calls?: false;
}

/** What the site's configuration adds to the conversation the page sends. */
export interface ConversationRules {
  /** Sent first, as the `system` message; never taken from the page. */
  instructions?: string;
  /** How many earlier exchanges (a user message and its reply) may come before the latest message. */
  history: number;
  /**
   * The site has pages (server/knowledge/): the visitor's text is then guarded as with instructions, whether or not
   * any of them is about the message (the material found is given to {@link composeRequest}).
   */
  knowledge?: boolean;
  /**
   * With the site's `page_context`: whether a host page at this origin may name itself (`FRAME_ANCESTORS` allows it
   * to frame the app). Unset, the page's `page_context` is ignored.
   */
  pageOrigin?: (origin: string) => boolean;
}

const SPEC_RULES: ConversationRules = { history: 0 };

/**
 * The page's messages, checked: at most `history` exchanges (user, then assistant) before the latest user message,
 * each with non-blank text. A `system` message is the site's to give, never the page's.
 */
function readMessages(messages: unknown, history: number): UpstreamMessage[] | string {
  const shape =
    history === 0
      ? '`messages` must hold exactly one user message.'
      : `\`messages\` must hold up to ${history} earlier exchanges (a user message, then an assistant message) and then one user message.`;
  if (Array.isArray(messages) && messages.some((message) => isRecord(message) && message.role === 'system')) {
    return '`messages` must not hold a system message: the site sets its own instructions.';
  }
  if (!Array.isArray(messages) || messages.length % 2 !== 1 || messages.length > 2 * history + 1) return shape;
  const read: UpstreamMessage[] = [];
  for (const [index, message] of messages.entries()) {
    const role = index % 2 === 0 ? 'user' : 'assistant';
    if (!isRecord(message) || message.role !== role) return shape;
    if (typeof message.content !== 'string' || message.content.trim() === '') {
      return index === messages.length - 1
        ? 'The user message must have non-empty text content.'
        : 'Every earlier message must have non-empty text content.';
    }
    read.push({ role, content: message.content });
  }
  return read;
}

/** The request to send upstream, with the site's pages it was given (as the reply's sources). */
export interface ComposedRequest {
  request: ChatRequest;
  sources: ReplySource[];
  passages: number;
}

/** The outcome of {@link parseChatRequest}: the request to send upstream, or why the body was refused. */
export type ParsedChatRequest = ({ ok: true } & ComposedRequest) | { ok: false; reason: string };

/** The page's chat request, read and checked: what the steps after it build on. */
export interface ChatBody {
  /** The exchanges the site allows, then the latest user message, as the page sent them. */
  conversation: UpstreamMessage[];
  /** The latest message, and with history the question before it, as the visitor typed them: what retrieval reads. */
  latest: string;
  previous?: string;
  /** The visitor's page, when the site allows its origin to name one. */
  page?: PageContext;
  maxTokens: number;
  temperature: number;
  stream: boolean;
}

/**
 * The visitor's language, as the page sends it beside the chat request (proxy mode): a BCP 47 tag, for retrieval only.
 * It is never forwarded.
 */
export function visitorLanguage(body: unknown): string | undefined {
  const tag = isRecord(body) ? body.language : undefined;
  return typeof tag === 'string' && /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(tag) ? tag : undefined;
}

/** A JSON object (not `null`, not an array): what a body, a message or a reply's part must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
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
 * - `messages` must be exactly one `user` message with non-blank string content, as the app sends; with the site's
 *   `history`, up to that many earlier exchanges before it. The site's `instructions` go first as the `system` message;
 *   a page's own `system` message is refused, and with instructions the chat-template control sequences of every page
 *   message are broken ({@link breakControlSequences}).
 */
export function parseChatRequest(
  body: unknown,
  model: string,
  rules: ConversationRules = SPEC_RULES,
  material?: Material,
): ParsedChatRequest {
  const read = readChatBody(body, rules);
  return read.ok ? { ok: true, ...composeRequest(read.body, model, rules, material) } : read;
}

/** Reads the page's body (see {@link parseChatRequest}): the conversation, the visitor's page, the reply's bounds. */
export function readChatBody(
  body: unknown,
  { history, pageOrigin }: Pick<ConversationRules, 'history' | 'pageOrigin'>,
): { ok: true; body: ChatBody } | { ok: false; reason: string } {
  if (!isRecord(body)) return { ok: false, reason: 'The body must be a JSON object.' };
  const { messages, max_tokens: maxTokens, temperature, stream } = body;

  if (body.model !== undefined && typeof body.model !== 'string') {
    return { ok: false, reason: '`model` must be a string.' };
  }
  const conversation = readMessages(messages, history);
  if (typeof conversation === 'string') return { ok: false, reason: conversation };
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
    return { ok: false, reason: '`max_tokens` must be a positive integer.' };
  }
  if (temperature !== undefined && (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))) {
    return { ok: false, reason: '`temperature` must be a number from 0 to 2.' };
  }
  if (stream !== undefined && typeof stream !== 'boolean') {
    return { ok: false, reason: '`stream` must be a boolean.' };
  }
  return {
    ok: true,
    body: {
      conversation,
      // The conversation alternates user and assistant: the question before the latest is two messages back.
      latest: conversation[conversation.length - 1].content,
      previous: conversation.at(-3)?.content,
      page: pageOrigin ? readPageContext(body.page_context, pageOrigin) : undefined,
      maxTokens: Math.min((maxTokens as number | undefined) ?? MAX_TOKENS, MAX_TOKENS),
      temperature: (temperature as number | undefined) ?? TEMPERATURE,
      stream: stream === true,
    },
  };
}

/** The upstream request from a read body: the site's instructions, the visitor's page, then `material` (its pages). */
export function composeRequest(
  read: ChatBody,
  model: string,
  { instructions, knowledge, pageOrigin }: Omit<ConversationRules, 'history'>,
  material?: Material,
): ComposedRequest {
  const { conversation, page } = read;
  const system = [instructions, page ? breakControlSequences(pageContextLine(page)) : undefined, material?.text]
    .filter(Boolean)
    .join('\n\n');
  // Whenever the site gives the model something a visitor must not override (its instructions, the page's context, its
  // pages' passages), no message from the page may open a turn of its own. Without it, the message goes as typed: the
  // spec's request.
  const siteSpeaks = Boolean(instructions) || Boolean(knowledge) || pageOrigin !== undefined;
  const guarded = siteSpeaks
    ? conversation.map((message) => ({ ...message, content: breakControlSequences(message.content) }))
    : conversation;
  const request: ChatRequest = {
    model,
    messages: system ? [{ role: 'system', content: system }, ...guarded] : guarded,
    max_tokens: read.maxTokens,
    temperature: read.temperature,
  };
  if (read.stream) {
    request.stream = true;
    request.stream_options = { include_usage: true };
  }
  return { request, sources: material?.sources ?? [], passages: material?.passages ?? 0 };
}

/**
 * Room for what a chat template wraps around a message (role markers, a model's default system prompt), which the
 * provider counts as prompt tokens too.
 */
export const TEMPLATE_TOKENS = 64;

/**
 * The most a request can cost, the number the spend cap reserves (chat prices its own request): its message's length in UTF-8 bytes (byte-level tokenizers never make more tokens than
 * bytes, so this bounds the prompt from above), the chat template, and every token it may be answered with.
 */
export function reservationFor(request: ChatRequest<UpstreamMessage | ToolTurn>): number {
  // A tool round and the tools offered are counted as their JSON, which bounds what a template makes of them.
  const message = request.messages.reduce(
    (bytes, message) =>
      bytes +
      Buffer.byteLength(
        message.role === 'tool' || message.content === null ? JSON.stringify(message) : message.content,
      ),
    0,
  );
  const tools = request.tools ? Buffer.byteLength(JSON.stringify(request.tools)) : 0;
  return message + tools + TEMPLATE_TOKENS + request.max_tokens;
}
