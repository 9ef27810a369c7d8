// The names of the environment variables the product reads: the one list of them. The server's readers
// (server/settings/env-values.ts) and the page's (`ImportMetaEnv`, src/vite-env.d.ts) are typed with it, so a name read
// anywhere is a name on this list; at start-up, a variable that looks like one of them but is not is said
// (server/settings/setting-names.ts). .env.example documents each one.

/** Every variable the product reads, the server's and the page's (`VITE_`, compiled into the build). */
export const SETTING_NAMES = [
  'ASSISTANT_CONFIG',
  'LLM_API_KEY',
  'LLM_BASE_URL',
  'LLM_MODEL',
  'LLM_TIMEOUT_MS',
  'LLM_DEMO',
  'LLM_DAILY_TOKEN_LIMIT',
  'RATE_LIMIT_PER_MINUTE',
  'REDIS_URL',
  'DATA_DIR',
  'OWNER_TOKEN',
  'FEEDBACK_SECRET',
  'DATABASE_URL',
  'SMTP_URL',
  'HANDOFF_FROM',
  'HANDOFF_WEBHOOK_SECRET',
  'HANDOFF_DAILY_LIMIT',
  'HANDOFF_MIN_SECONDS',
  'ACTIONS_SECRET',
  'IDENTITY_SECRET',
  'IDENTITY_PUBLIC_KEY',
  'KNOWLEDGE_REFRESH_HOURS',
  'KNOWLEDGE_INDEX_TEXT',
  'TRUST_PROXY',
  'METRICS_PORT',
  'METRICS_HOST',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'FRAME_ANCESTORS',
  'CSP_CONNECT_SRC',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'MAX_CONNECTIONS',
  'PORT',
  'HOST',
  'BASE_PATH',
  'VITE_LLM_API_KEY',
  'VITE_LLM_BASE_URL',
  'VITE_LLM_MODEL',
  'VITE_LLM_TIMEOUT_MS',
  'VITE_LLM_STREAM',
  'VITE_LLM_SLOW_MS',
] as const;

export type SettingName = (typeof SETTING_NAMES)[number];

/** The page's settings, as Vite compiles them into the build. */
export type PageSettingName = Extract<SettingName, `VITE_${string}`>;

/**
 * The beginnings that mark a variable as meant for this product: one that starts so but is no setting is most likely
 * a misspelt one. (`PORT` and `HOST` are too common a word to guess from.)
 */
export const SETTING_PREFIXES = [
  'ASSISTANT_',
  'LLM_',
  'VITE_LLM_',
  'RATE_LIMIT',
  'REDIS_',
  'OWNER_',
  'FEEDBACK_',
  'DATA_',
  'DATABASE_',
  'SMTP_',
  'HANDOFF_',
  'ACTIONS_',
  'IDENTITY_',
  'KNOWLEDGE_',
  'TRUST_',
  'METRICS_',
  'FRAME_',
  'CSP_',
  'HEADERS_TIMEOUT',
  'REQUEST_TIMEOUT',
  'MAX_CONNECTION',
] as const;
