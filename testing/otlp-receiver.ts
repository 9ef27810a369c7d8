import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A collector's OTLP/HTTP receiver on 127.0.0.1, for the traces' tests: it takes JSON exports at `/v1/traces`, keeps
// every body as it came (to search for what must never be in one) and reads its spans.

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

/** One span as received, its attributes read into plain values. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root span. */
  parentSpanId: string;
  kind: number;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  attributes: Record<string, unknown>;
  /** The resource's attributes (`service.name`). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: `http://127.0.0.1:PORT`. */
  endpoint: string;
  /** Every export body, as received. */
  bodies: string[];
  spans: ReceivedSpan[];
  /** The paths and content types of the requests received. */
  requests: { path: string; type: string }[];
  close(): Promise<void>;
}

function plainValue(value: AnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValue);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, plainValue(value)]));

interface Export {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, 'attributes' | 'resource' | 'status' | 'parentSpanId'> & {
        parentSpanId?: string;
        attributes?: KeyValue[];
        status?: { code?: number };
      })[];
    }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    requests.push({ path: request.url ?? '', type: request.headers['content-type'] ?? '' });
    bodies.push(body);
    if (request.url === '/v1/traces' && request.headers['content-type'] === 'application/json') {
      for (const { resource, scopeSpans = [] } of (JSON.parse(body) as Export).resourceSpans ?? []) {
        for (const span of scopeSpans.flatMap((scope) => scope.spans ?? [])) {
          spans.push({
            name: span.name,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            kind: span.kind,
            status: span.status?.code ?? 0,
            attributes: attributesOf(span.attributes),
            resource: attributesOf(resource?.attributes),
          });
        }
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
