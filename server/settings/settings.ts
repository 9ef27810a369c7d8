// The settings room's one entry: the environment and the site's file, read strictly, and how a bad one is said.
export {
  type AssistantConfig,
  assistantConfigFile,
  DEFAULT_ASSISTANT_CONFIG,
  loadAssistantConfig,
} from './assistant-config.ts';
export { OUTSIDE_BASE_PATH, pathUnder, readBasePath } from './base-path.ts';
export { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './connection-limits.ts';
export { loadDotEnvFiles } from './dot-env-files.ts';
export { EnvError, readServerEnv, type ServerConfig } from './env.ts';
export type { ActionsEnv } from './env-actions.ts';
export type { HandoffEnv } from './env-handoff.ts';
export { readStoreEnv } from './env-store.ts';
export { type DirectBuild, describeUpstream } from './env-upstream.ts';
export { settingNotices } from './setting-names.ts';
export { exitOnConfigError, startupFailure } from './startup-failure.ts';
