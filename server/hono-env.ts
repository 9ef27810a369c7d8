import type { HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Feedback } from './feedback/feedback.ts';
import type { Knowledge } from './knowledge-sync/knowledge-sync.ts';
import type { Counters } from './limits/counters.ts';
import type { Metrics } from './metrics.ts';
import type { SecurityOptions } from './pages/security-headers.ts';
import type { AssistantConfig } from './settings/assistant-config.ts';

/**
 * Every server running the app is @hono/node-server's (`listen`, and `getRequestListener` in Vite's): each request
 * comes with Node's own request and response.
 */
export type ServerEnv = { Bindings: HttpBindings };

/**
 * Where chat requests go: an OpenAI-compatible provider holding the token, the built-in demo responder, or nowhere
 * (a direct-mode build, whose page calls its provider itself: the server then offers no chat endpoint).
 */
export type Upstream =
  | { kind: 'provider'; baseURL: string; apiKey: string; model: string }
  | { kind: 'demo' }
  | { kind: 'none' };

/** What the app mounts of the handoff (server/handoff/handoff.ts builds it): its routes, over the app's counters. */
export interface HandoffRoutes {
  routes(options: ProxyOptions, counters: Counters): Hono<ServerEnv>;
}

/** Everything the server does, decided by its caller: nothing in here reads `process.env`. */
export interface ProxyOptions {
  upstream: Upstream;
  /** How long one upstream exchange may take, body included, before the client gets a 504. */
  timeoutMs: number;
  /** Chat requests per client per minute; `0` turns the limit off. */
  rateLimitPerMinute: number;
  /** How many reverse proxies in front of this server append to `X-Forwarded-For` (0: use the socket address). */
  trustProxyHops: number;
  /**
   * The reverse proxies in front, by address or CIDR range; when given, it replaces `trustProxyHops`: a forwarded
   * address counts only when the connecting peer is one of them.
   */
  trustedProxies?: string[];
  /** Where rate-limit hits and spent tokens are counted: this process's memory by default, or Redis. */
  counters?: Counters;
  /**
   * Tokens per UTC day: each provider call reserves the most it can cost first, and gets 429 until midnight when that
   * would pass the cap; the reservation is then settled to the reported usage. 0 or unset: no cap.
   */
  dailyTokenLimit?: number;
  metrics?: Metrics;
  security: SecurityOptions;
  /** The site's configuration (assistant.config.yaml): the page's settings and the model's instructions. */
  assistant?: AssistantConfig;
  /**
   * The site's pages, started from `assistant.knowledge` (see `startSiteKnowledge`): each question's passages go to the
   * model, and `/readyz` waits for the first index and names each source's state.
   */
  knowledge?: Knowledge;
  /**
   * The owner's loop (server/feedback/): a token with each reply, `POST /api/feedback`, the counts and `GET /api/stats`.
   * Unset (direct mode, and the tests that are not about it): no tokens, no counts.
   */
  feedback?: Feedback;
  /** "Contact a person" (server/handoff/): `GET`/`POST /api/handoff` and the outbox's deliverer; unset, none. */
  handoff?: HandoffRoutes;
  /** `OWNER_TOKEN`: the bearer token of `GET /api/stats` and the owner's page; unset, both answer 404. */
  ownerToken?: string;
  /** The sub-path everything is served under (`BASE_PATH`, e.g. `/assistant`); empty: the root. */
  basePath?: string;
  /** The built client (`dist/client`) to serve next to the proxy; left out in Vite's dev and preview servers. */
  clientDir?: string;
  /** Largest accepted request body in bytes. */
  maxBodyBytes?: number;
  /** One line per proxied request and per problem; never message contents or the token. */
  log?: (line: string) => void;
}
