import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What the server counts, in its own registry (not prom-client's global one, so two apps in one process stay apart). */
export interface Metrics {
  registry: Registry;
  chatRequests: Counter<'status'>;
  upstreamDuration: Histogram;
  tokens: Counter<'kind'>;
  rateLimited: Counter<'reason'>;
  /** Answers given with the site's pages configured, by whether the pages covered the question; never its text. */
  knowledgeAnswers: Counter<'sources'>;
  knowledgePassages: Counter;
  /** The owner's counts (server/feedback/), as they happen: never a visitor's text. */
  conversations: Counter;
  messages: Counter;
  replies: Counter<'sources'>;
  replyErrors: Counter;
  firstPiece: Histogram;
  /** Votes standing (a changed vote moves from one rating to the other), since this process started. */
  votes: Gauge<'rating'>;
  downReasons: Gauge<'reason'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, label?: L) =>
    new Counter<L>({ name, help, labelNames: label ? [label] : [], registers });
  const gauge = <L extends string>(name: string, help: string, label: L) =>
    new Gauge<L>({ name, help, labelNames: [label], registers });
  const histogram = (name: string, help: string, buckets: number[]) =>
    new Histogram({ name, help, buckets, registers });
  return {
    registry,
    chatRequests: counter('ai_assistant_chat_requests_total', 'Chat requests answered, by HTTP status.', 'status'),
    upstreamDuration: histogram(
      'ai_assistant_upstream_duration_seconds',
      'Time from calling the provider to the end of its answer (streams included).',
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60],
    ),
    tokens: counter(
      'ai_assistant_tokens_total',
      'Tokens the provider reported, by kind (prompt or completion).',
      'kind',
    ),
    rateLimited: counter(
      'ai_assistant_rate_limited_total',
      'Chat requests refused with 429, by reason (rate_limit or spend_cap).',
      'reason',
    ),
    knowledgeAnswers: counter(
      'ai_assistant_knowledge_answers_total',
      "Answers with the site's pages configured, by sources: with (passages given) or without (not covered).",
      'sources',
    ),
    knowledgePassages: counter(
      'ai_assistant_knowledge_passages_total',
      "Passages of the site's pages given to the model.",
    ),
    conversations: counter('ai_assistant_conversations_total', "Conversations started (a tab's first message)."),
    messages: counter('ai_assistant_messages_total', "Visitors' messages passed to the model."),
    replies: counter(
      'ai_assistant_replies_total',
      "Replies, by sources: with (the site's passages given) or without.",
      'sources',
    ),
    replyErrors: counter(
      'ai_assistant_reply_errors_total',
      'Chat requests that ended in a server or provider error (5xx).',
    ),
    firstPiece: histogram(
      'ai_assistant_first_piece_seconds',
      'Time from a chat request to the first piece of its reply (the whole reply when not streamed).',
      [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 8, 15, 30],
    ),
    votes: gauge(
      'ai_assistant_votes',
      'Votes on replies since this process started, by rating (up or down); a changed vote moves.',
      'rating',
    ),
    downReasons: gauge(
      'ai_assistant_down_reasons',
      'Not helpful votes since this process started, by reason.',
      'reason',
    ),
  };
}

/**
 * Serves the Prometheus text on its own listener (`METRICS_PORT`), by default on 127.0.0.1 only: metrics describe
 * traffic and the process, which is nobody's business on the public port.
 */
export function serveMetrics(metrics: Metrics, port: number, host: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ port: (server.address() as AddressInfo).port, server }));
  });
}
