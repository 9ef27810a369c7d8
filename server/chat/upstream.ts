import { Agent, request as sendRequest } from 'undici';
import type { ReplySource } from '../../contract/llm.ts';
import type { Upstream } from '../hono-env.ts';
import type { SearchWordsReason } from '../knowledge/knowledge.ts';
import type { ModelCall } from '../traces/traces.ts';
import type { RoundRequest } from './chat-request.ts';
import { DEMO_MODEL, demoResponse } from './demo-responder.ts';
import { MAX_EVENT_BYTES } from './event-reader.ts';
import { describeProviderError, finishReason } from './reply-rebuild.ts';

/**
 * The provider's (or the demo's) answer, read only as far as the proxy needs it: its status, a header, then either the
 * body piece by piece (whole, with {@link readBounded}), or nothing of it.
 */
export interface UpstreamAnswer {
  status: number;
  header(name: string): string | undefined;
  chunks(): AsyncIterator<Uint8Array>;
  /** Drops the body unread (and with it the connection's remaining work). */
  discard(): Promise<void>;
}

type ChatUpstream = Exclude<Upstream, { kind: 'none' }>;

/** For log lines: the provider's host only (its URL's path or query could carry an account id). */
export function upstreamLabel(upstream: ChatUpstream): string {
  return upstream.kind === 'provider' ? new URL(upstream.baseURL).host : upstream.kind;
}

/** A call to `upstream`, as its span names it: the provider's host only, as in {@link upstreamLabel}. */
export function modelCallOf(upstream: ChatUpstream, purpose: ModelCall['purpose']): ModelCall {
  return upstream.kind === 'provider'
    ? { provider: 'openai', model: upstream.model, serverAddress: new URL(upstream.baseURL).hostname, purpose }
    : { provider: 'ai-assistant.demo', model: DEMO_MODEL, purpose };
}

/** Why each choice of a completion ended (`stop`, `length`, …): only a reason's word, as the page gets it. */
export function finishReasonsOf(answer: unknown): string[] {
  const choices = (answer as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return [];
  return choices.flatMap((choice) => finishReason((choice as { finish_reason?: unknown } | null)?.finish_reason) ?? []);
}

/**
 * Sends a checked chat request to the provider, or has the demo responder answer it in its place (saying which of the
 * site's pages were found, when `sources` are given: the site has `knowledge`; and why it would have asked a model for
 * search words, when `searchWords` says).
 */
export function callUpstream(
  upstream: ChatUpstream,
  request: RoundRequest,
  signal: AbortSignal,
  sources?: readonly ReplySource[],
  searchWords?: SearchWordsReason,
): Promise<UpstreamAnswer> {
  return upstream.kind === 'demo'
    ? Promise.resolve(answerOf(demoResponse(request, sources, searchWords)))
    : callProvider(upstream, request, signal);
}

/** The demo responder's answer, a web `Response`, as an {@link UpstreamAnswer}. */
function answerOf(response: Response): UpstreamAnswer {
  const body = response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    chunks: () => body[Symbol.asyncIterator](),
    discard: () => body.cancel().catch(() => undefined),
  };
}

/**
 * Keeps connections to the provider open between requests. undici's `request` rather than `fetch`: without the WHATWG
 * request and stream layers, a call costs markedly less CPU.
 */
const providerAgent = new Agent({ keepAliveTimeout: 30_000 });

async function callProvider(
  upstream: Extract<Upstream, { kind: 'provider' }>,
  request: RoundRequest,
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  // Appended to the path, so a query some providers need (e.g. `?api-version=`) stays a query.
  const url = new URL(upstream.baseURL);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  // No redirect is followed (undici's `request` follows none): the token would go wherever one points. A 3xx is a
  // failed call like any other status outside 2xx.
  const { statusCode, headers, body } = await sendRequest(url, {
    method: 'POST',
    // Only these headers: nothing from the visitor (cookies, their placeholder key, addresses) is passed on.
    headers: {
      authorization: `Bearer ${upstream.apiKey}`,
      'content-type': 'application/json',
      accept: request.stream ? 'text/event-stream' : 'application/json',
    },
    body: JSON.stringify(request),
    signal,
    dispatcher: providerAgent,
  });
  return {
    status: statusCode,
    header: (name) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    chunks: () => body[Symbol.asyncIterator](),
    discard: async () => {
      // Destroyed unread, undici's body emits an abort error: handled here, or it would take the process down.
      body.on('error', () => undefined);
      body.destroy();
    },
  };
}

/**
 * The whole body as text, read up to `limit` bytes: past it, the rest is dropped unread and the answer is
 * `'too-large'`, so that no provider can make the server hold more than that for one reply.
 */
export async function readBounded(answer: UpstreamAnswer, limit: number): Promise<string | 'too-large'> {
  const chunks = answer.chunks();
  const pieces: Uint8Array[] = [];
  let size = 0;
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    size += next.value.length;
    if (size > limit) {
      await answer.discard();
      return 'too-large';
    }
    pieces.push(next.value);
  }
  return Buffer.concat(pieces).toString('utf8');
}

/** Errors of a call that never reached the provider: it cost nothing. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export const neverSent = (error: unknown) => NEVER_SENT.has((error as NodeJS.ErrnoException).code ?? '');

/** For the log line of a provider's refusal: its error's `type` and `code` (never its message), when it gives them. */
export async function providerErrorOf(answer: UpstreamAnswer): Promise<string> {
  const body = await readBounded(answer, MAX_EVENT_BYTES);
  if (body === 'too-large') return '';
  const error = (JSON.parse(body) as { error?: unknown } | null)?.error;
  return error === undefined || error === null ? '' : ` ${describeProviderError(error)}`;
}
