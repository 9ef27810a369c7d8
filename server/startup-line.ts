// What `npm start` says once it is listening, and once it has stopped: one line each, which an owner reads to know
// what is in use, and which tests and scripts take as "ready" (it starts `[server] AI Assistant on URL`).

/** What the server started with, as far as an owner must know it. */
export interface StartedWith {
  url: string;
  /** Bound to every interface (`0.0.0.0`, `::`). */
  allInterfaces: boolean;
  /** BASE_PATH, or empty for the root. */
  basePath: string;
  /** What answers chat (env-upstream.ts `describeUpstream`). */
  upstream: string;
  /** REDIS_URL, or undefined for counts in this process's memory. */
  redisUrl?: string;
  /** How many `knowledge:` sources the site's file lists (0: none). */
  knowledgeSources: number;
  /** Where the synced pages are kept: DATABASE_URL, or undefined for files under `dataDir`. */
  databaseUrl?: string;
  /** DATA_DIR. */
  dataDir: string;
  /** Where the metrics are served, or undefined without METRICS_PORT. */
  metricsUrl?: string;
}

/** A URL with whatever credentials it carries replaced by `***`: the log is read by more people than the secrets. */
export function hideCredentials(address: string): string {
  const url = new URL(address);
  if (!url.username && !url.password) return address;
  url.username = '***';
  url.password = '';
  return url.href;
}

/** The one line that says the server is up, and with what. */
export function startedLine(started: StartedWith): string {
  const address = started.basePath ? `${started.url}${started.basePath}/` : started.url;
  const where = `${address}${started.allInterfaces ? ' (all interfaces)' : ''}`;
  const parts = [
    `base path ${started.basePath || '/ (none)'}`,
    started.redisUrl ? `Redis ${hideCredentials(started.redisUrl)}` : 'counts in memory (no REDIS_URL)',
    started.knowledgeSources > 0
      ? `knowledge (${started.knowledgeSources} source${started.knowledgeSources === 1 ? '' : 's'}) kept in ${
          started.databaseUrl ? `PostgreSQL ${hideCredentials(started.databaseUrl)}` : started.dataDir
        }`
      : 'no knowledge sources',
    started.metricsUrl ? `metrics on ${started.metricsUrl}` : 'no metrics (no METRICS_PORT)',
  ];
  return `[server] AI Assistant on ${where}: ${started.upstream}; ${parts.join('; ')}`;
}

/** The last line, once every connection is closed and the process is about to exit. */
export function stoppedLine(signal: string, cut: number): string {
  return `[server] stopped after ${signal}${cut > 0 ? ` (${cut} connections cut)` : ''}`;
}
