import type { ReplyActions } from '../../contract/actions.ts';
import type { ReplySource, ReplyTokenFields } from '../../contract/llm.ts';
import { isRecord } from './chat-request.ts';

/**
 * A provider's reply, rebuilt from the few fields the page reads: each choice's role, content and finish reason, and
 * the usage. Everything else a provider adds (`system_fingerprint`, vendor account fields, its own ids) stays here.
 */

interface RebuiltUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A finish reason as the API names one (`stop`, `length`, `content_filter`...); anything else is no reason. */
export function finishReason(value: unknown): string | null {
  return typeof value === 'string' && /^[a-z_]{1,32}$/.test(value) ? value : null;
}

function usageOf(value: unknown): RebuiltUsage | undefined {
  if (!isRecord(value)) return undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0);
  return {
    prompt_tokens: count(value.prompt_tokens),
    completion_tokens: count(value.completion_tokens),
    total_tokens: count(value.total_tokens),
  };
}

function choicesOf(value: unknown): Record<string, unknown>[] | undefined {
  return Array.isArray(value) ? value.filter(isRecord) : undefined;
}

/** The index the provider gave a choice, or its place in the list. */
const indexOf = (choice: Record<string, unknown>, place: number) =>
  Number.isInteger(choice.index) && (choice.index as number) >= 0 ? (choice.index as number) : place;

/** The text of a message or delta: a string, `null`, or absent. */
function textOf(message: Record<string, unknown>): string | null | undefined {
  return typeof message.content === 'string' || message.content === null ? message.content : undefined;
}

/** A streamed chunk as the page receives it: only what it reads. */
interface RebuiltChunk {
  object: 'chat.completion.chunk';
  choices: { index: number; delta: { role?: 'assistant'; content?: string | null }; finish_reason: unknown }[];
  usage?: unknown;
}

/**
 * A streamed chunk rebuilt: `undefined` when it carries no choice (the usage-only chunk, which the page has no use for,
 * or a vendor's own object).
 */
export function rebuildChunk(chunk: object): RebuiltChunk | undefined {
  const choices = choicesOf((chunk as { choices?: unknown }).choices);
  if (!choices || choices.length === 0) return undefined;
  const usage = usageOf((chunk as { usage?: unknown }).usage);
  return {
    object: 'chat.completion.chunk',
    choices: choices.map((choice, place) => {
      const given = isRecord(choice.delta) ? choice.delta : {};
      const delta: { role?: 'assistant'; content?: string | null } = {};
      if (given.role === 'assistant') delta.role = 'assistant';
      const content = textOf(given);
      if (content !== undefined) delta.content = content;
      return { index: indexOf(choice, place), delta, finish_reason: finishReason(choice.finish_reason) };
    }),
    ...(usage ? { usage } : {}),
  };
}

/**
 * A whole (non-streamed) completion rebuilt: its choices' messages as the assistant's, and its usage; `sources` (the
 * site's pages given to the model) are the proxy's own, added when there are some, and so are the reply's token and
 * what it did with the site's actions (contract/actions.ts).
 */
export function rebuildCompletion(
  completion: unknown,
  sources: readonly ReplySource[] = [],
  token?: ReplyTokenFields,
  actions?: ReplyActions,
): object {
  const record = isRecord(completion) ? completion : {};
  const usage = usageOf(record.usage);
  return {
    object: 'chat.completion',
    choices: (choicesOf(record.choices) ?? []).map((choice, place) => ({
      index: indexOf(choice, place),
      message: { role: 'assistant', content: (isRecord(choice.message) ? textOf(choice.message) : null) ?? null },
      finish_reason: finishReason(choice.finish_reason),
    })),
    ...(usage ? { usage } : {}),
    ...(sources.length > 0 ? { sources } : {}),
    ...token,
    ...(actions && (actions.notes.length > 0 || actions.confirmation) ? { actions } : {}),
  };
}

/**
 * For the log: a provider error's `type` and `code`, when they look like identifiers. Never its `message`, which may
 * quote the visitor or name the account.
 */
export function describeProviderError(error: unknown): string {
  const record = isRecord(error) ? error : {};
  const word = (value: unknown) =>
    (typeof value === 'string' && /^[\w.-]{1,64}$/.test(value)) || Number.isInteger(value) ? String(value) : '-';
  return `type=${word(record.type)} code=${word(record.code)}`;
}
