// The traces room's one entry (issue 50): what the other rooms see of tracing, a `Tracer` that does nothing unless the
// owner sets OTEL_EXPORTER_OTLP_ENDPOINT. Only then is the OpenTelemetry SDK loaded (otel-traces.ts, by a dynamic
// import): without it, not one module of it is read, so start-up time and memory stay as they were.
import type { MiddlewareHandler } from 'hono';

/**
 * The version of the OpenTelemetry semantic conventions whose GenAI attributes the spans carry (all of them
 * "Development" there, so they may be renamed later): v1.37.0, the first to name the provider `gen_ai.provider.name`
 * (earlier versions said `gen_ai.system`). docs/observability.md names it too.
 */
export const GEN_AI_CONVENTIONS = '1.37.0';

export type SpanValue = string | number | boolean | readonly string[];
export type SpanAttributes = Record<string, SpanValue | undefined>;

/** One span: counts and names added as they become known, a failure's kind (never its message), its end. */
export interface TraceSpan {
  set(attributes: SpanAttributes): void;
  /** The span's status is an error, with `kind` (a fixed word of ours, such as `timeout`) as its `error.type`. */
  fail(kind: string): void;
  end(): void;
}

/** What the rooms are given: spans under the request's span (or under `parent`). */
export interface Tracer {
  start(name: string, attributes?: SpanAttributes, parent?: TraceSpan): TraceSpan;
}

const NO_SPAN: TraceSpan = { set: () => undefined, fail: () => undefined, end: () => undefined };

/** The default: no traces, and nothing of the SDK loaded. */
export const NO_TRACER: Tracer = { start: () => NO_SPAN };

/** Where traces go (`OTEL_EXPORTER_OTLP_ENDPOINT`) and under which name (`OTEL_SERVICE_NAME`). */
export interface TracesSettings {
  endpoint: string;
  serviceName: string;
}

/** What the SDK's side gives (otel-traces.ts): the tracer, each request's span, and a flush on the way out. */
export interface LoadedTraces {
  tracer: Tracer;
  requests: MiddlewareHandler;
  close(): Promise<void>;
}

/** Traces on: what the SDK gives, whether it has loaded yet or not, and what the start-up line says of it. */
export interface Traces extends LoadedTraces {
  /** For the start-up line: the endpoint's host alone (never its credentials, path or query). */
  describe(): string;
}

/**
 * Starts loading the SDK at once (the server does not wait for it): the first request waits for it instead, so every
 * request has its span. Should it fail to load, the server says so once and runs without traces.
 */
export function startTraces(settings: TracesSettings, log: (line: string) => void): Traces {
  let loaded: LoadedTraces | undefined;
  const loading = import('./otel-traces.ts').then(
    (otel) => {
      loaded = otel.openTelemetry(settings);
      return loaded;
    },
    (error: unknown) => {
      log(`[server] traces are off: the OpenTelemetry SDK did not load (${(error as Error).name})`);
      return undefined;
    },
  );
  return {
    tracer: { start: (name, attributes, parent) => loaded?.tracer.start(name, attributes, parent) ?? NO_SPAN },
    requests: async (c, next) => {
      const traces = loaded ?? (await loading);
      return traces ? traces.requests(c, next) : next();
    },
    describe: () => `traces to ${new URL(settings.endpoint).host}`,
    close: async () => (await loading)?.close(),
  };
}

/** A model call (the reply, or the search words), as the GenAI conventions (v{@link GEN_AI_CONVENTIONS}) name it. */
export interface ModelCall {
  /** `openai`: the API spoken (any OpenAI-compatible provider); the demo is this project's own. */
  provider: 'openai' | 'ai-assistant.demo';
  model: string;
  /** The provider's host, never its path, query or token. */
  serverAddress?: string;
  /** `reply` or `search-words`: which of the request's calls this is. */
  purpose: 'reply' | 'search-words';
}

/** A span for one model call: `chat {model}`, a client span as the conventions draw it. */
export function startModelCall(tracer: Tracer, call: ModelCall, parent?: TraceSpan): TraceSpan {
  return tracer.start(
    `chat ${call.model}`,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': call.provider,
      'gen_ai.request.model': call.model,
      'server.address': call.serverAddress,
      'ai_assistant.model_call.purpose': call.purpose,
    },
    parent,
  );
}

/** What a model call's answer said about itself: its token counts and why each choice ended. */
export function modelAnswered(
  span: TraceSpan,
  { input, output, finishReasons }: { input?: number; output?: number; finishReasons?: readonly string[] },
): void {
  span.set({
    'gen_ai.usage.input_tokens': input,
    'gen_ai.usage.output_tokens': output,
    'gen_ai.response.finish_reasons': finishReasons && finishReasons.length > 0 ? finishReasons : undefined,
  });
}

/** The retrieval's counts: passages given to the model, and whether (and why) the model was asked for search words. */
export function retrievalCounts(
  span: TraceSpan,
  counts: { passages: number; searchWordsCalled: boolean; reason?: string },
): void {
  span.set({
    'ai_assistant.retrieval.passages': counts.passages,
    'ai_assistant.retrieval.search_words_called': counts.searchWordsCalled,
    'ai_assistant.retrieval.search_words_reason': counts.reason,
  });
}
