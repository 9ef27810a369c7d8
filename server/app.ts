import { type Context, Hono } from 'hono';
import { ACTIONS_CONFIRM_PATH } from '../contract/actions.ts';
import { EMBED_HOST_PARAM, EMBED_LANG_PARAM } from '../contract/embed.ts';
import { FEEDBACK_PATH } from '../contract/feedback.ts';
import { HANDOFF_PATH } from '../contract/handoff.ts';
import { PROXY_BASE_PATH } from '../contract/llm.ts';
import { apiError, refusalLine } from './api-error.ts';
import type { AppOptions } from './app-options.ts';
import { chatRoute, confirmRoute } from './chat/chat.ts';
import { feedbackRoutes } from './feedback/owner-loop.ts';
import type { ServerEnv } from './hono-env.ts';
import { type Counters, MemoryCounters, RedisCounters, SpendCap } from './limits/limits.ts';
import {
  frameAncestorAllows,
  frameAncestorSources,
  headersForPath,
  pageLanguage,
  prepareLoaders,
  prepareOwnerPage,
  preparePages,
  refusedFrameNotice,
  securityHeaders,
  serveClient,
} from './pages/pages.ts';
import { DEFAULT_ASSISTANT_CONFIG, pathUnder } from './settings/settings.ts';
import { NO_TRACER } from './traces/traces.ts';

/** The owner's page exists where its stats do: a chat route that counts, and `OWNER_TOKEN` set. */
export function ownerPageServed(options: AppOptions): boolean {
  return options.upstream.kind !== 'none' && options.feedback !== undefined && Boolean(options.ownerToken);
}

/**
 * The site's one request handler: security headers on every response, health checks, the same-origin LLM proxy
 * under `PROXY_BASE_PATH` (only its chat route forwards; everything else there is a JSON 404), and (with `clientDir`)
 * the built app. Vite's dev and preview servers and the production server all run this app, so what is tested here
 * is what runs everywhere.
 */
export function createApp(options: AppOptions): Hono<ServerEnv> {
  const log = options.log ?? ((line: string) => console.log(line));
  const headers = securityHeaders(options.security);
  const counters = options.counters ?? new MemoryCounters();
  const spendCap = options.dailyTokenLimit ? new SpendCap(options.dailyTokenLimit, counters) : undefined;
  // Under BASE_PATH every route sees the path inside it; anything outside matches no route, and is a 404.
  const app = new Hono<ServerEnv>({ getPath: pathUnder(options.basePath ?? '') });

  // First, so that the request's span covers all that answers it, refusals included.
  if (options.traces) app.use('*', options.traces.requests);

  // Set on Node's response before anything answers (what a handler sets itself still wins): setting them on each web
  // Response afterwards made it build and validate a Headers object per response.
  app.use('*', async (c, next) => {
    for (const [name, value] of Object.entries(headersForPath(headers, c.req.path))) {
      c.env.outgoing.setHeader(name, value);
    }
    await next();
  });

  // The loader's frame names its host page; one that may not frame the site gets a broken frame, so the log says so.
  const noteFrameHost = refusedFrameNotice(options.security.frameAncestors, log);
  app.use('*', async (c, next) => {
    noteFrameHost(c.req.query(EMBED_HOST_PARAM), c.req.header('host'));
    await next();
  });

  healthChecks(app, counters, options);

  const visitorApi = sameSiteOnly(log);
  app.use(`${PROXY_BASE_PATH}/*`, visitorApi);

  const { upstream } = options;
  if (upstream.kind !== 'none') {
    const frameSources = frameAncestorSources(options.security.frameAncestors);
    const framesAllowed = (origin: string, selfHost: string) => frameAncestorAllows(frameSources, origin, selfHost);
    const tracer = options.traces?.tracer ?? NO_TRACER;
    const chatDeps = { counters, spendCap, log, framesAllowed, tracer };
    app.route('/', chatRoute({ ...options, upstream }, chatDeps));
    // The visitor's Confirm is answered as a chat reply, with the chat's steps and limits.
    if (options.actions) {
      app.use(ACTIONS_CONFIRM_PATH, visitorApi);
      app.route('/', confirmRoute({ ...options, upstream, actions: options.actions }, chatDeps));
    }
  }
  // A vote is only for a reply this server gave: with no chat route (direct mode) there is none.
  if (upstream.kind !== 'none' && options.feedback) {
    app.use(FEEDBACK_PATH, visitorApi);
    const deps = { feedback: options.feedback, counters, log, ownerToken: options.ownerToken };
    app.route('/', feedbackRoutes(options, deps));
  }
  if (upstream.kind !== 'none' && options.handoff) {
    app.use(HANDOFF_PATH, visitorApi);
    app.route('/', options.handoff.routes(options, counters));
  }
  app.all(`${PROXY_BASE_PATH}/*`, (c) => apiError(c, 404, 'not_found', 'Not found.'));

  if (options.clientDir) serveTheClient(app, options.clientDir, options);

  app.notFound((c) =>
    c.req.path.startsWith('/api/') ? apiError(c, 404, 'not_found', 'Not found.') : c.text('Not found', 404),
  );
  app.onError((error, c) => {
    // The message may come from a library and is not the client's business; the name is enough to start looking.
    log(`[server] ${c.req.method} ${c.req.path} 500 ${error.name}`);
    return apiError(c, 500, 'internal_error', 'Internal server error.');
  });
  return app;
}

/**
 * Liveness: the process answers. Readiness: it can serve chat as configured (Redis reachable when it is set; without
 * it chat still works on per-process limits, but a balancer should prefer a replica that shares them; the site's
 * pages indexed when it has them, since until then every answer would go without them).
 */
function healthChecks(app: Hono<ServerEnv>, counters: Counters, options: AppOptions): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    const redis = counters instanceof RedisCounters ? (counters.reachable ? 'reachable' : 'unreachable') : 'not used';
    // A store that stops answering later leaves the index it gave: chat still has its passages, so the replica stays
    // ready, and the body says so.
    const knowledge = options.knowledge?.status();
    const ready = redis !== 'unreachable' && (options.knowledge?.isReady() ?? true);
    return c.json(
      {
        status: ready ? 'ready' : 'not ready',
        upstream: options.upstream.kind,
        redis,
        ...(knowledge ? { knowledge: knowledge.state, sources: knowledge.sources } : {}),
      },
      ready ? 200 : 503,
    );
  });
}

/** The visitor's API: never cached, and only from this site's own pages (`Sec-Fetch-Site`). */
function sameSiteOnly(log: (line: string) => void) {
  return async (c: Context<ServerEnv>, next: () => Promise<void>) => {
    // Answers are per visitor and per message: no cache may keep them.
    c.env.outgoing.setHeader('Cache-Control', 'no-store');
    // Browsers mark every request with where it came from; a page on another site must not spend this site's quota.
    // There is no CORS either, so a foreign page's JSON request already fails its preflight; this also stops the
    // "simple" requests that skip the preflight.
    const site = c.req.header('sec-fetch-site');
    if (site && site !== 'same-origin' && site !== 'none') {
      log(refusalLine(c, 403, 'forbidden_origin'));
      return apiError(c, 403, 'forbidden_origin', 'Requests from other sites are not allowed.');
    }
    await next();
  };
}

/** The built app's pages and files, filled and compressed once, here at start-up: a changed configuration takes a restart, never a rebuild. */
function serveTheClient(app: Hono<ServerEnv>, clientDir: string, options: AppOptions): void {
  const assistant = options.assistant ?? DEFAULT_ASSISTANT_CONFIG;
  const pages = preparePages(clientDir, assistant);
  const loaders = prepareLoaders(clientDir, assistant);
  const language = (c: Context<ServerEnv>, asked?: string) =>
    pageLanguage({ asked, configured: assistant.language, acceptLanguage: c.req.header('accept-language') });
  serveClient(
    app,
    clientDir,
    (c) => pages[language(c, c.req.query(EMBED_LANG_PARAM))],
    loaders && ((c) => loaders[language(c)]),
    ownerPageServed(options) ? prepareOwnerPage(clientDir) : undefined,
  );
}
