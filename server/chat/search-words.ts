// The one bounded model call for search words (issue 35): when the visitor writes in another language than the pages,
// asks a follow-up, asks a large site, or the question as typed finds nothing confident, the model is asked once for a
// few search words. They are search text only: never shown, never put into the prompt.
import type { Upstream } from '../hono-env.ts';
import {
  formatMaterial,
  type Knowledge,
  type Material,
  oneLine,
  type Question,
  RETRIEVAL_LIMITS,
  type SearchWordsReason,
} from '../knowledge/knowledge.ts';
import { readUsage, type TokenUsage } from '../limits/limits.ts';
import { modelAnswered, startModelCall, type Tracer, type TraceSpan } from '../traces/traces.ts';
import { type ChatBody, type ChatRequest, reservationFor } from './chat-request.ts';
import { breakControlSequences } from './control-sequences.ts';
import { callUpstream, finishReasonsOf, modelCallOf, readBounded, type UpstreamAnswer } from './upstream.ts';

/** The search-word call's bounds: a few words, the same every time, and never a long wait before the reply. */
export const SEARCH_WORDS_LIMITS = { maxTokens: 60, temperature: 0, timeoutMs: 3000, maxAnswerBytes: 16_000 };

/** The longest search text kept from the model's answer: search words, not an answer. */
const MAX_WORDS_LENGTH = 200;

/** The site the model is told about: its pages' language, its `title`, and what it is about (`description`). */
export interface SiteFacts {
  language: string;
  title?: string;
  description?: string;
}

/**
 * What the model is asked: words to search the site's pages with, in the pages' language, and nothing else; or NONE
 * when the site (named, with what it is about) cannot cover the question.
 */
export function searchWordsPrompt({ language, title, description }: SiteFacts): string {
  const name = title ? `the website "${oneLine(title)}"` : 'a website';
  const about = description ? ` The site: ${oneLine(description)}` : '';
  return (
    `You turn a visitor's question to ${name} into search words for the site's pages, which are written in the ` +
    `language tagged "${language}".${about} Answer with 2 to 8 search words in that language, on one line: ` +
    `standalone (resolve what a follow-up refers to from the previous question), using the terms such a site would ` +
    `use. If the site cannot be about the question, answer NONE. Never answer the question.`
  );
}

/** The search-word request: the question (and, for a follow-up, the previous one), at temperature 0, a few tokens. */
export function searchWordsRequest(
  model: string,
  site: SiteFacts,
  latest: string,
  previous: string | undefined,
): ChatRequest {
  const question = previous ? `Previous question: ${previous}\nQuestion: ${latest}` : `Question: ${latest}`;
  return {
    model,
    messages: [
      { role: 'system', content: searchWordsPrompt(site) },
      { role: 'user', content: question },
    ],
    max_tokens: SEARCH_WORDS_LIMITS.maxTokens,
    temperature: SEARCH_WORDS_LIMITS.temperature,
  };
}

/** The words, and what they cost (for the spend cap); `undefined` words on any failure. */
export interface SearchWords {
  words?: string;
  usage?: TokenUsage;
  finishReasons?: string[];
}

/**
 * Asks the provider once for search words, within its own time limit (and the visitor's request's: leaving ends it).
 * Any failure (a refusal, a time-out, an unreadable answer, an empty one) gives no words: retrieval then uses the
 * question as typed.
 */
export async function askSearchWords(
  upstream: Extract<Upstream, { kind: 'provider' }>,
  request: ChatRequest,
  visitorSignal: AbortSignal,
  timeoutMs = SEARCH_WORDS_LIMITS.timeoutMs,
): Promise<SearchWords> {
  const { signal, release } = endsWithin(visitorSignal, timeoutMs);
  let answer: UpstreamAnswer | undefined;
  try {
    answer = await callUpstream(upstream, request, signal);
    if (answer.status < 200 || answer.status > 299) {
      await answer.discard();
      return {};
    }
    const text = await readBounded(answer, SEARCH_WORDS_LIMITS.maxAnswerBytes);
    if (text === 'too-large') return {};
    const completion = JSON.parse(text) as { choices?: { message?: { content?: unknown } }[]; usage?: unknown };
    const usage = readUsage(completion.usage);
    const content = completion.choices?.[0]?.message?.content;
    const words = typeof content === 'string' ? content.replace(/\s+/g, ' ').trim().slice(0, MAX_WORDS_LENGTH) : '';
    return { words: words || undefined, usage, finishReasons: finishReasonsOf(completion) };
  } catch {
    await answer?.discard();
    return {};
  } finally {
    release();
  }
}

/**
 * A signal that ends when `visitorSignal` does or after `ms`, and `release`, which lets go of both. Not
 * `AbortSignal.any([visitorSignal, AbortSignal.timeout(ms)])`: in Node 20 nothing holds the time-out's own signal
 * there, so a garbage collection before it fires takes the time limit with it, and a provider that never answers then
 * holds the reply as long as the visitor waits. Here the timer holds the controller until it fires or is released.
 */
function endsWithin(visitorSignal: AbortSignal, ms: number): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onVisitor = () => controller.abort(visitorSignal.reason);
  const timer = setTimeout(
    () => controller.abort(new DOMException('The search-word call timed out', 'TimeoutError')),
    ms,
  );
  if (visitorSignal.aborted) onVisitor();
  else visitorSignal.addEventListener('abort', onVisitor, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      visitorSignal.removeEventListener('abort', onVisitor);
    },
  };
}

/** The bytes of text the most material that retrieval gives can take (`RETRIEVAL_LIMITS.maxTokens`, quoted and numbered). */
const MATERIAL_RESERVE = RETRIEVAL_LIMITS.maxTokens * 5;

/** What the site's pages give a message: the material the question as typed found, and whether to ask for words. */
export interface SiteLookUp {
  question: Question;
  material: Material;
  /** Why a model should be asked for search words, and the request to ask it with (unset: the question is enough). */
  searchWords?: { reason: SearchWordsReason; request: ChatRequest; reserve: number };
}

/** The material of the passages the site's pages give `question` (with the model's search words, when given). */
function materialFor(knowledge: Knowledge, question: Question, searchWords?: string): Material {
  const found = knowledge.retrieve({ ...question, searchWords });
  return formatMaterial(
    found.map((f) => f.passage),
    breakControlSequences,
  );
}

/**
 * Looks the message up in the site's pages, and says whether a search-word call would help: data in, data out.
 * `language` is the visitor's (the page sends it), else the site's.
 */
export function lookUpSite(
  knowledge: Knowledge,
  read: Pick<ChatBody, 'latest' | 'previous'>,
  {
    model,
    language,
    rewrite,
    site,
  }: { model: string; language?: string; rewrite: boolean; site?: Omit<SiteFacts, 'language'> },
): SiteLookUp {
  const question: Question = { latest: read.latest, previous: read.previous, language };
  const material = materialFor(knowledge, question);
  const reason = rewrite ? knowledge.searchWordsReason(question) : undefined;
  const pagesLanguage = knowledge.language();
  if (!reason || !pagesLanguage) return { question, material };
  const request = searchWordsRequest(model, { ...site, language: pagesLanguage }, question.latest, question.previous);
  return { question, material, searchWords: { reason, request, reserve: reservationFor(request) + MATERIAL_RESERVE } };
}

/**
 * Asks for search words when the look-up says to (a provider only: the demo says it would have), and gives the material
 * they find; the question as typed stands when the call fails. `usage` is the call's cost.
 */
export async function searchAgain(
  knowledge: Knowledge,
  look: SiteLookUp,
  upstream: Exclude<Upstream, { kind: 'none' }>,
  signal: AbortSignal,
  { log, tracer, retrieval }: { log: (line: string) => void; tracer: Tracer; retrieval: TraceSpan },
): Promise<{ material: Material; usage?: TokenUsage } | undefined> {
  if (!look.searchWords || upstream.kind !== 'provider') return undefined;
  const span = startModelCall(tracer, modelCallOf(upstream, 'search-words'), retrieval);
  const { words, usage, finishReasons } = await askSearchWords(upstream, look.searchWords.request, signal);
  modelAnswered(span, { input: usage?.prompt, output: usage?.completion, finishReasons });
  if (words === undefined) span.fail('no_search_words');
  span.end();
  log(`[llm-proxy] search words asked (${look.searchWords.reason}): ${words === undefined ? 'none came' : 'used'}`);
  return { material: words === undefined ? look.material : materialFor(knowledge, look.question, words), usage };
}
