// The handoff room's one entry ("talk to a person"): the rest of the server imports this file. It builds the outbox in
// the configured store, the deliverer, the worker and the route from the settings, once, at start-up.
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { Feedback } from '../feedback/owner-loop.ts';
import type { ServerEnv } from '../hono-env.ts';
import type { Counters, LimitOptions } from '../limits/limits.ts';
import type { HandoffEnv } from '../settings/settings.ts';
import { type Deliver, deliverer } from './deliver.ts';
import { type DeliveryOutcome, type DeliveryTimes, startDeliveryWorker } from './delivery-worker.ts';
import { FileOutbox } from './file-outbox.ts';
import { type FormTokens, formTokens } from './form-token.ts';
import { handoffRoute, type RouteCount } from './handoff-route.ts';
import type { Channel, Outbox } from './outbox-types.ts';
import { PostgresOutbox } from './postgres-outbox.ts';

export type { DeliveryTimes } from './delivery-worker.ts';
export type { Outbox } from './outbox-types.ts';

/** What the owner's counts hear: a form offered, a message sent by a visitor, delivered, or set aside as failed. */
export type HandoffCount = RouteCount | DeliveryOutcome;

export interface HandoffSettings {
  /** The site's `handoff:` block. */
  to: { email?: string; webhook?: string };
  env: HandoffEnv;
  /** The site's title, in the mail's subject. */
  title: string;
  /** Where the outbox lives: `DATABASE_URL` when set, else `DATA_DIR`. */
  store: { dataDir: string; databaseUrl?: string };
  /** The site's secret (`FEEDBACK_SECRET` or the store's): the form tokens' key is drawn from it. */
  secret: () => Promise<string>;
  limitMessage?: string;
  contact?: string;
  count?: (event: HandoffCount) => void;
  log: (line: string) => void;
  /** Shorter clocks, for tests: the delivery's. */
  times?: DeliveryTimes;
  /** Another way to deliver (tests of the worker alone). */
  deliver?: Deliver;
}

export interface Handoff {
  /** Where messages go and where they wait, for the start-up line (no address with a password). */
  describe(): string;
  routes(options: LimitOptions, counters: Counters): Hono<ServerEnv>;
  outbox: Outbox;
  close(): Promise<void>;
}

/** The outbox in the configured store: PostgreSQL with `DATABASE_URL` (shared by replicas), else `DATA_DIR`. */
export function openOutbox(store: HandoffSettings['store'], log: (line: string) => void): Outbox {
  return store.databaseUrl ? new PostgresOutbox(store.databaseUrl, log) : new FileOutbox(store.dataDir, log);
}

export function createHandoff(settings: HandoffSettings): Handoff {
  const { to, env, store, log } = settings;
  const count = settings.count ?? (() => {});
  const outbox = openOutbox(store, log);
  const channels: Channel[] = [...(to.email ? ['email' as const] : []), ...(to.webhook ? ['webhook' as const] : [])];
  const deliver =
    settings.deliver ??
    deliverer({
      title: settings.title,
      ...(to.email && env.smtpUrl ? { email: { to: to.email, smtpUrl: env.smtpUrl, from: env.from } } : {}),
      ...(to.webhook ? { webhook: { url: to.webhook, secret: env.webhookSecret } } : {}),
    });
  const worker = startDeliveryWorker(outbox, deliver, { times: settings.times, log, outcome: count });
  let tokens: Promise<FormTokens> | undefined;
  const tokensNow = () => {
    tokens ??= settings.secret().then((secret) => formTokens(secret, { minAgeMs: env.minSeconds * 1000 }));
    tokens.catch(() => {
      tokens = undefined;
    });
    return tokens;
  };
  return {
    outbox,
    describe() {
      const where = [to.email && `email to ${to.email}`, to.webhook && `webhook ${new URL(to.webhook).host}`];
      return `handoffs go by ${where.filter(Boolean).join(' and ')}, waiting in ${outbox.home}`;
    },
    routes(options, counters) {
      return handoffRoute(options, {
        tokens: tokensNow,
        counters,
        dailyLimit: env.dailyLimit,
        limitMessage: settings.limitMessage,
        contact: settings.contact,
        count,
        log,
        async enqueue(message) {
          const now = Date.now();
          await outbox.put({ id: randomUUID(), createdAt: now, attempts: 0, nextAt: now, pending: channels, message });
          worker.kick();
        },
      });
    },
    async close() {
      await worker.stop();
      await outbox.close();
    },
  };
}

/**
 * The handoff as the server's settings and the site's file ask for it, the same for `npm start`, `vite preview` and
 * `npm run dev`: none without a `handoff:` block, or without the owner's loop (a direct-mode build has no server
 * route to send to); its counts go with the owner's.
 */
export function serverHandoff(
  config: { handoff: HandoffEnv; store: { dataDir: string; databaseUrl?: string } },
  assistant: {
    handoff?: { email?: string; webhook?: string };
    page: { title?: string; limitMessage?: string; contact?: string };
  },
  feedback: Pick<Feedback, 'secret' | 'count'> | undefined,
  log: (line: string) => void,
): Handoff | undefined {
  if (!assistant.handoff || !feedback) return undefined;
  return createHandoff({
    to: assistant.handoff,
    env: config.handoff,
    title: assistant.page.title ?? 'AI Assistant',
    store: config.store,
    secret: () => feedback.secret(),
    limitMessage: assistant.page.limitMessage,
    contact: assistant.page.contact,
    count: (event) => feedback.count({ kind: 'handoff', event }),
    log,
  });
}
