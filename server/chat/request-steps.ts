// The chat request's first steps (chat-route.ts runs them in order): parse the body and look the site's pages up, then,
// once the call is reserved, find the material with the model's search words when the look-up said to ask for them.
import { apiError, type RefusalCode, readJsonBody, refusalLine } from '../api-error.ts';
import { retrievalCounts, type TraceSpan } from '../traces/traces.ts';
import {
  type ChatBody,
  type ConversationRules,
  composeRequest,
  readChatBody,
  visitorLanguage,
} from './chat-request.ts';
import type { ChatTurn, Found, Parsed } from './chat-steps.ts';
import { DEMO_MODEL } from './demo-responder.ts';
import { lookUpSite, type SiteLookUp, searchAgain } from './search-words.ts';

/** The request read: its body (raw and checked), the site's rules and model, the pages' look-up, the request composed. */
export interface Parsing {
  body: unknown;
  read: ChatBody;
  rules: ConversationRules;
  model: string;
  look?: SiteLookUp;
  parsed: Parsed;
  /** The retrieval's span, from the look-up to the material found (ended by `find`, or when the call is refused). */
  retrieval?: TraceSpan;
}
function refuse({ c, deps }: ChatTurn, status: 400 | 415, code: RefusalCode, message: string): Response {
  deps.log(refusalLine(c, status, code));
  return apiError(c, status, code, message);
}

/**
 * Parse: the body read, the site's pages looked up for its message (with whether to ask for search words), and the
 * request composed from them (none before the first index). Without `lookUp` (a reply about an action done), no page
 * is looked up: the request is the site's instructions, the visitor's page and the conversation.
 */
export async function parse(turn: ChatTurn, lookUp = true): Promise<Parsing | Response> {
  const { c, options, deps } = turn;
  const raw = await readJsonBody(c, 'the request');
  if ('status' in raw) return refuse(turn, raw.status, raw.code, raw.message);
  const { assistant, upstream } = options;
  const knowledge = lookUp ? options.knowledge : undefined;
  const rules = {
    instructions: assistant?.instructions,
    history: assistant?.page.history ?? 0,
    // A site with pages guards the visitor's text whether or not they are looked up this time.
    knowledge: options.knowledge !== undefined,
    ...(assistant?.page.pageContext
      ? { pageOrigin: (origin: string) => deps.framesAllowed(origin, c.req.header('host') ?? '') }
      : {}),
  };
  const read = readChatBody(raw.body, rules);
  if (!read.ok) return refuse(turn, 400, 'invalid_body', read.reason);
  const model = upstream.kind === 'demo' ? DEMO_MODEL : upstream.model;
  const retrieval = knowledge && deps.tracer.start('retrieval');
  const look =
    knowledge &&
    lookUpSite(knowledge, read.body, {
      model,
      language: visitorLanguage(raw.body) ?? assistant?.language,
      rewrite: assistant?.rewriteQuestions !== false,
      site: { title: assistant?.page.title, description: assistant?.description ?? knowledge.description() },
    });
  const composed = composeRequest(read.body, model, rules, look?.material);
  return { body: raw.body, read: read.body, rules, model, look, parsed: { ok: true, ...composed }, retrieval };
}

/** Find: with the model's search words when the look-up said to ask for them, else what the question as typed found. */
export async function find({ c, options, deps }: ChatTurn, parsing: Parsing): Promise<Found> {
  const { read, rules, model, look, parsed, retrieval } = parsing;
  const knowledge = options.knowledge;
  const searched =
    look &&
    knowledge &&
    retrieval &&
    (await searchAgain(knowledge, look, options.upstream, c.req.raw.signal, { ...deps, retrieval }));
  const again = searched ? { ok: true as const, ...composeRequest(read, model, rules, searched.material) } : parsed;
  if (retrieval) {
    const reason = look?.searchWords?.reason;
    retrievalCounts(retrieval, { passages: again.passages, searchWordsCalled: Boolean(searched), reason });
    retrieval.end();
  }
  return { ...again, searchReason: look?.searchWords?.reason, searchUsage: searched?.usage };
}
