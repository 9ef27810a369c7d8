// The composition root: where data lives (memory, Redis, files, PostgreSQL) and which parts exist is decided here,
// once, from the settings. The production server, `npm run dev`, `vite preview` and the knowledge commands all call
// it and close what it returns; no entry point wires parts by hand.
import { type ServerActions, serverActions } from './actions/actions.ts';
import { createFeedback, type Feedback, FileCountStore, RedisCountStore } from './feedback/owner-loop.ts';
import { type Handoff, serverHandoff } from './handoff/handoff.ts';
import {
  type Knowledge,
  type KnowledgeSource,
  type KnowledgeStore,
  openKnowledgeStore,
  startKnowledge,
} from './knowledge/knowledge.ts';
import { RedisCounters } from './limits/limits.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import type { AssistantConfig, ServerConfig } from './settings/settings.ts';
import { startTraces, type Traces } from './traces/traces.ts';

/** What the parts are built from: the server's settings (`readServerEnv`), or the store's alone for the commands. */
export type PartsSettings = Pick<ServerConfig, 'store'> &
  Partial<Pick<ServerConfig, 'redisUrl' | 'feedbackSecret' | 'metrics' | 'proxy' | 'handoff' | 'traces' | 'actions'>>;

export interface PartsOptions {
  /** The site's sources (`assistant.knowledge`); none: no store and no library. */
  sources?: readonly KnowledgeSource[];
  /** `false`: the store is opened, and no library reads it (the knowledge commands work on the store themselves). */
  library?: boolean;
  /** The site's `handoff:` block and page settings: with the owner's loop, a way to a person (server/handoff/). */
  site?: Pick<AssistantConfig, 'handoff' | 'page' | 'actions'>;
  log: (line: string) => void;
}

export interface ServerParts {
  /** The rate limit's and the spend cap's counts in Redis (`REDIS_URL`); unset: the app counts in its own memory. */
  counters?: RedisCounters;
  metrics?: Metrics;
  /** Traces to the owner's collector (`OTEL_EXPORTER_OTLP_ENDPOINT`): the SDK loads in the background, only then. */
  traces?: Traces;
  store?: KnowledgeStore;
  /** The site's library, loading in the background: the server answers at once and `/readyz` waits for it. */
  knowledge?: Knowledge;
  /** The owner's loop; none for a direct-mode build (no reply to vote on) and for the commands. */
  feedback?: Feedback;
  /** "Contact a person": its outbox and deliverer, when the site has a `handoff:` block and the owner's loop runs. */
  handoff?: Handoff;
  /** The owner's API calls the model may ask for: the site's `actions:` with the owner's loop (proxy mode only). */
  actions?: ServerActions;
  /**
   * Closes what was opened, the users before what they use: the library, the handoff's deliverer, the counts, the
   * Redis connection, and last the traces (the spans still waiting are sent).
   */
  close(): Promise<void>;
}

/** Builds the server's parts once: one Redis connection or none, shared by the limits and the owner's counts. */
export function buildServerParts(
  settings: PartsSettings,
  { sources, library = true, site, log }: PartsOptions,
): ServerParts {
  const counters = settings.redisUrl ? new RedisCounters(settings.redisUrl, log) : undefined;
  const metrics = settings.metrics ? createMetrics() : undefined;
  const traces = settings.traces && startTraces(settings.traces, log);
  const store = sources && openKnowledgeStore(settings.store, log);
  const knowledge =
    store && sources && library
      ? startKnowledge(sources, {
          store,
          refreshMs: settings.store.refreshHours * 3_600_000,
          ...settings.store.indexBudget,
          log,
        })
      : undefined;
  const givesReplies = settings.proxy !== undefined && settings.proxy.upstream.kind !== 'none';
  const feedback = givesReplies
    ? createFeedback({
        store: counters ? new RedisCountStore(counters.connection) : new FileCountStore(settings.store.dataDir, log),
        secret: settings.feedbackSecret,
        metrics,
        log,
        ...(knowledge ? { pages: () => knowledge.pages() } : {}),
      })
    : undefined;
  const handoff =
    site && settings.handoff
      ? serverHandoff({ ...settings, handoff: settings.handoff }, site, feedback, log)
      : undefined;
  // The confirmations' key comes from the site's secret, as the handoff form's does; ACTIONS_SECRET signs calls only.
  const actions =
    site?.actions && feedback
      ? serverActions({
          actions: site.actions,
          siteSecret: () => feedback.secret(),
          callSecret: settings.actions?.secret,
          identityKeys: { secret: settings.actions?.identitySecret, publicKey: settings.actions?.identityPublicKey },
          // Per action in the owner's counts; a refusal is only logged (by its code, in the confirm route).
          count: (action, event) => {
            if (event !== 'refused') feedback.count({ kind: 'action', action, event });
          },
        })
      : undefined;
  let closed: Promise<void> | undefined;
  return {
    counters,
    metrics,
    traces,
    store,
    knowledge,
    feedback,
    handoff,
    actions,
    close: () => {
      closed ??= (async () => {
        knowledge?.stop();
        await store?.close();
        await handoff?.close();
        await feedback?.close();
        await counters?.close();
        await traces?.close();
      })();
      return closed;
    },
  };
}
