import type { ReplySource } from '../../contract/llm.ts';
import type { SearchWordsReason } from '../knowledge/knowledge.ts';
import type { RoundRequest } from './chat-request.ts';

/** The model name the demo responder reports, so a demo reply can never be mistaken for a real model's. */
export const DEMO_MODEL = 'demo-responder';

const QUOTE_LIMIT = 80;
/** The pause between two words of a streamed demo reply. */
export const DEMO_PIECE_MS = 40;

/**
 * What the site's pages gave the question, for a site owner checking them before paying for a token: the pages found
 * (cited as [n], so the sources show under the reply as usual), or that none covers it.
 */
function foundText(sources: readonly ReplySource[]): string {
  if (sources.length === 0) return " Your site's pages hold no passage that covers this question.";
  return ` Your site's pages gave passages from ${sources.map(({ n }) => `[${n}]`).join(', ')}.`;
}

/** Why a model would have been asked for search words before the pages were searched. */
const SEARCH_WORDS_WHY: Record<SearchWordsReason, string> = {
  language: 'the question is in another language than the pages',
  'follow-up': 'a follow-up is looked up with the question before it, which gives its context',
  'large-site': 'the site is large, and a visitor’s words are rarely its pages’',
  'not-found': 'the question as typed found nothing confident',
};

/**
 * The demo's reply: says plainly that no model answered, and how to configure one; with the site's pages configured
 * (`sources` given), which of them the question found.
 */
export function demoReplyText(
  userText: string,
  sources?: readonly ReplySource[],
  searchWords?: SearchWordsReason,
): string {
  const oneLine = userText.replace(/\s+/g, ' ').trim();
  const quoted = oneLine.length > QUOTE_LIMIT ? `${oneLine.slice(0, QUOTE_LIMIT)}…` : oneLine;
  return (
    `This is a demo reply: no language model is configured, so nobody read “${quoted}”.` +
    (searchWords ? ` A model would have been asked for search words first: ${SEARCH_WORDS_WHY[searchWords]}.` : '') +
    (sources ? foundText(sources) : '') +
    ' To chat with a real model, put LLM_API_KEY (and optionally LLM_BASE_URL and LLM_MODEL) in a .env file ' +
    'and restart the server. The README explains the settings.'
  );
}

function completionChunk(fields: Record<string, unknown>) {
  return { id: 'chatcmpl-demo', created: Math.floor(Date.now() / 1000), model: DEMO_MODEL, ...fields };
}

/**
 * An OpenAI-compatible chat-completions answer for a request the proxy has already checked, made without any
 * provider: a JSON completion, or a server-sent-events stream of word deltas when `stream` is set. The proxy calls
 * it in place of the provider, so validation, limits and headers are exactly those of real traffic.
 */
export function demoResponse(
  request: RoundRequest,
  sources?: readonly ReplySource[],
  searchWords?: SearchWordsReason,
): Response {
  const text = demoReplyText(
    request.messages.findLast((message) => message.role === 'user')?.content ?? '',
    sources,
    searchWords,
  );
  if (!request.stream) {
    return Response.json(
      completionChunk({
        object: 'chat.completion',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } }],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      }),
    );
  }
  const encoder = new TextEncoder();
  const event = (data: unknown) =>
    encoder.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  const words = text.match(/\S+\s*/g) ?? [];
  const chunks = [
    completionChunk({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant' } }] }),
    ...words.map((word) =>
      completionChunk({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: word } }] }),
    ),
    completionChunk({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    '[DONE]',
  ];
  // Paced like a model writing, so that `npm run dev` shows a reply streaming in, with Stop and the typing indicator.
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next > 0) await new Promise((resolve) => setTimeout(resolve, DEMO_PIECE_MS));
      controller.enqueue(event(chunks[next]));
      next += 1;
      if (next === chunks.length) controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
}
