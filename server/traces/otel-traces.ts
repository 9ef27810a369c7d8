// The OpenTelemetry SDK's side of the traces room, loaded only with OTEL_EXPORTER_OTLP_ENDPOINT (traces.ts imports
// it dynamically): a tracer provider that batches spans to an OTLP/HTTP (JSON) exporter, @hono/otel's span per
// request, and one processor that keeps the query string and error messages out of every span.
import { httpInstrumentationMiddleware } from '@hono/otel';
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { LoadedTraces, SpanAttributes, TraceSpan, TracesSettings } from './traces.ts';

/** The signal's path under the endpoint, as the OTLP exporter specification appends it to OTEL_EXPORTER_OTLP_ENDPOINT. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Applied to every span as it starts, ours and @hono/otel's: its `url.full` loses the query string (a page's
 * `?host=` or a search could name a visitor), and a recorded exception keeps only its name (a library's message may
 * quote a request).
 */
const privacy: SpanProcessor = {
  onStart(span) {
    const full = span.attributes['url.full'];
    if (typeof full === 'string') span.setAttribute('url.full', full.split(/[?#]/)[0]);
    (span as Span).recordException = (exception) => {
      const name = typeof exception === 'object' && exception !== null && 'name' in exception ? exception.name : '';
      span.setAttribute('error.type', String(name || 'Error'));
    };
  },
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/** The attributes that have a value (a count not known yet is left out, not sent empty); lists copied as the SDK keeps them. */
function defined(attributes: SpanAttributes = {}): Attributes {
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) kept[name] = typeof value === 'object' ? [...value] : value;
  }
  return kept;
}

/** The SDK set up for this process: spans to `settings.endpoint`, named `settings.serviceName`. */
export function openTelemetry(settings: TracesSettings): LoadedTraces {
  const exporter = new OTLPTraceExporter({ url: tracesUrl(settings.endpoint) });
  // Sent every 5 s, or as the standard OTEL_BSP_* variables say (the SDK reads them), and on the way out.
  const batches = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [privacy, batches],
  });
  // The request's span is the active one while its handlers run (AsyncLocalStorage), so a step's span is its child.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const otel = provider.getTracer('ai-assistant');
  const spans = new WeakMap<TraceSpan, Span>();

  const wrap = (span: Span): TraceSpan => {
    const traced: TraceSpan = {
      set: (attributes) => span.setAttributes(defined(attributes)),
      fail: (kind) => {
        span.setAttribute('error.type', kind);
        span.setStatus({ code: SpanStatusCode.ERROR });
      },
      end: () => span.end(),
    };
    spans.set(traced, span);
    return traced;
  };

  return {
    tracer: {
      start: (name, attributes, parent) => {
        const parentSpan = parent && spans.get(parent);
        const within = parentSpan ? trace.setSpan(context.active(), parentSpan) : context.active();
        return wrap(otel.startSpan(name, { kind: SpanKind.CLIENT, attributes: defined(attributes) }, within));
      },
    },
    // No active-request gauge: its meter would be the global no-op one, work for nothing.
    requests: httpInstrumentationMiddleware({
      tracer: otel,
      serviceName: settings.serviceName,
      captureActiveRequests: false,
    }),
    close: async () => {
      await provider.shutdown();
      context.disable();
    },
  };
}
