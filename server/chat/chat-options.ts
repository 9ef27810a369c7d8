import type { ServerActions } from '../actions/actions.ts';
import type { Feedback } from '../feedback/owner-loop.ts';
import type { Upstream } from '../hono-env.ts';
import type { Knowledge } from '../knowledge/knowledge.ts';
import type { Counters, LimitOptions, SpendCap } from '../limits/limits.ts';
import type { AssistantConfig } from '../settings/settings.ts';
import type { Tracer } from '../traces/traces.ts';

/** The chat route's options, as the app is given them (composed with the other rooms' in server/app-options.ts). */
export interface ChatOptions extends LimitOptions {
  upstream: Upstream;
  /** How long one upstream exchange may take, body included, before the client gets a 504. */
  timeoutMs: number;
  /** The site's configuration (assistant.config.yaml): the page's settings and the model's instructions. */
  assistant?: AssistantConfig;
  /**
   * The site's pages, started from `assistant.knowledge` (server/server-parts.ts): each question's passages go to the
   * model, and `/readyz` waits for the first index and names each source's state.
   */
  knowledge?: Knowledge;
  /**
   * The owner's loop (server/feedback/): a token with each reply, `POST /api/feedback`, the counts and `GET /api/stats`.
   * Unset (direct mode, and the tests that are not about it): no tokens, no counts.
   */
  feedback?: Feedback;
  /**
   * The site's `actions:` (server/actions/): offered to the model as tools, a read called at once, a write turned into
   * a confirmation for the visitor; the app mounts `POST /api/actions/confirm` with them.
   */
  actions?: ServerActions;
}

/** Where a chat request goes: a provider or the demo (a direct-mode build has no chat route). */
export type ChatUpstream = Exclude<Upstream, { kind: 'none' }>;

/** What the chat route needs besides its options: where counts go, and where its log lines go. */
export interface ChatRouteDeps {
  counters: Counters;
  spendCap: SpendCap | undefined;
  log: (line: string) => void;
  /** Whether a host page at `origin` may frame the site whose own host is `selfHost` (`FRAME_ANCESTORS`). */
  framesAllowed: (origin: string, selfHost: string) => boolean;
  /** Spans for the model calls and the retrieval, under the request's (`NO_TRACER` without traces). */
  tracer: Tracer;
}
