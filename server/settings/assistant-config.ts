import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as v from 'valibot';
import { DEFAULT_PAGE_SETTINGS, type PageSettings } from '../../contract/page-settings.ts';
import { type Language, matchLanguage } from '../../locales/languages.ts';
import type { Action } from '../actions/actions.ts';
import type { KnowledgeSource } from '../knowledge/knowledge.ts';
import { type AccentShades, readAccent } from '../pages/pages.ts';
import { actionProblems, toActions } from './config-actions.ts';
import { AssistantConfigError, problemsOf, SourceFile, shown } from './config-file.ts';
import { type ConfigFile, configSchema, KEYS } from './config-schema.ts';
import type { Env } from './env-values.ts';

/** The file read when `ASSISTANT_CONFIG` is unset, from the working directory, when it exists. */
export const DEFAULT_CONFIG_FILE = 'assistant.config.yaml';

/** The site owner's configuration, checked: what the page gets, its accent, and what stays on the server. */
export interface AssistantConfig {
  /** The file it came from; none when there is no configuration (every value is then the spec's). */
  file?: string;
  page: PageSettings;
  accent?: AccentShades;
  /**
   * The page's language when the embed's tag asks for none: before the visitor's browser languages
   * (server/page-language.ts). Unset, the browser's decide.
   */
  language?: Language;
  /** Sent to the model as a `system` message before the visitor's; never to the page. */
  instructions?: string;
  /** The site's pages the model answers from (proxy mode); a folder's `path` is absolute, resolved against the file's. */
  knowledge?: KnowledgeSource[];
  /** What the site is about (`description:`), told to the model that gives search words. */
  description?: string;
  /** `handoff:`: where a visitor's message to a person goes (server/handoff/). */
  handoff?: { email?: string; webhook?: string };
  /** `rewrite_questions: false`: retrieval never asks the model for search words (with `knowledge`). */
  rewriteQuestions?: false;
  /** `actions:`: the owner's API calls the model may ask for (proxy mode; server/actions/). */
  actions?: Action[];
}

/** The configuration of a site with no file: exactly the spec. */
export const DEFAULT_ASSISTANT_CONFIG: AssistantConfig = { page: DEFAULT_PAGE_SETTINGS };

/**
 * Checks the text of a configuration file (YAML; JSON is YAML too). `direct` is a build whose page calls the provider
 * itself: it refuses `instructions`, `history` and `knowledge`, which the page would then have to carry.
 */
export function parseAssistantConfig(
  source: string,
  file: string,
  { direct, smtp, identity = false }: { direct: boolean; smtp?: boolean; identity?: boolean },
): AssistantConfig {
  const parsed = new SourceFile(source);
  const [yamlError] = parsed.document.errors;
  if (yamlError) throw new AssistantConfigError(file, [`not valid YAML: ${yamlError.message}`]);
  const data: unknown = parsed.document.toJS() ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new AssistantConfigError(file, [`(top level): must be a mapping of keys (${KEYS})`]);
  }
  const result = v.safeParse(configSchema, data, { abortEarly: false });
  const problems = result.success ? [] : problemsOf(parsed, result.issues);
  const values: ConfigFile = result.success ? result.output : {};

  let accent: AccentShades | undefined;
  const accentText = (data as Record<string, unknown>).accent;
  if (typeof accentText === 'string') {
    const read = readAccent(accentText);
    if (read.ok) accent = read.shades;
    else problems.push(parsed.problem(['accent'], `${shown(accentText)} ${read.reason}`));
  }
  if (direct) {
    for (const key of [
      'instructions',
      'history',
      'knowledge',
      'page_context',
      'rewrite_questions',
      'handoff',
      'actions',
    ] as const) {
      if (key in data) {
        problems.push(
          parsed.problem(
            [key],
            'not allowed in a direct-mode build (VITE_LLM_API_KEY set): the page itself would carry it; ' +
              'use proxy mode (the token in LLM_API_KEY on the server) for it',
          ),
        );
      }
    }
  }
  // Mail with nowhere to send it from would wait in the outbox for a day and be set aside: the owner hears of it now.
  if (smtp === false && values.handoff?.email !== undefined) {
    problems.push(
      parsed.problem(['handoff', 'email'], 'needs SMTP_URL (smtp://user:password@smtp.example:587) to send'),
    );
  }
  // A folder that is not there would give no page and no error: the owner hears of it now, with its line.
  for (const [n, source] of (values.knowledge ?? []).entries()) {
    if (!('path' in source)) continue;
    const folder = resolve(dirname(file), source.path);
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      problems.push(parsed.problem(['knowledge', n, 'path'], `${shown(source.path)} is not a folder (${folder})`));
    }
  }
  problems.push(
    ...actionProblems(parsed.problem.bind(parsed), (data as Record<string, unknown>).actions, { identity }),
  );
  if (problems.length > 0) throw new AssistantConfigError(file, problems);

  return toAssistantConfig(file, values, accent);
}

/** The checked values as the server uses them: trimmed, paths resolved beside the file, the spec's defaults. */
function toAssistantConfig(file: string, values: ConfigFile, accent: AccentShades | undefined): AssistantConfig {
  return {
    file,
    page: {
      ...(values.title === undefined ? {} : { title: values.title.trim() }),
      ...(values.welcome === undefined ? {} : { welcome: values.welcome }),
      starters: values.starters ?? [],
      history: values.history ?? 0,
      ...(values.limit_message === undefined ? {} : { limitMessage: values.limit_message.trim() }),
      ...(values.persist === 'tab' ? { persist: 'tab' as const } : {}),
      ...(values.page_context ? { pageContext: true as const } : {}),
      ...(values.contact === undefined ? {} : { contact: values.contact.trim() }),
      ...(values.handoff === undefined
        ? {}
        : {
            handoff:
              values.handoff.reply_within === undefined ? {} : { replyWithin: values.handoff.reply_within.trim() },
          }),
    },
    ...(values.handoff === undefined
      ? {}
      : {
          handoff: {
            ...(values.handoff.email === undefined ? {} : { email: values.handoff.email.trim() }),
            ...(values.handoff.webhook === undefined ? {} : { webhook: values.handoff.webhook }),
          },
        }),
    ...(accent ? { accent } : {}),
    ...(values.language === undefined ? {} : { language: matchLanguage(values.language) }),
    ...(values.instructions === undefined ? {} : { instructions: values.instructions }),
    ...(values.description === undefined ? {} : { description: values.description.trim() }),
    ...(values.rewrite_questions === false ? { rewriteQuestions: false as const } : {}),
    ...(values.actions === undefined ? {} : { actions: toActions(values.actions) }),
    ...(values.knowledge === undefined
      ? {}
      : {
          knowledge: values.knowledge.map((source) =>
            'path' in source
              ? { path: resolve(dirname(file), source.path), url: source.url }
              : { sitemap: source.sitemap, ...(source.max_pages ? { maxPages: source.max_pages } : {}) },
          ),
        }),
  };
}

/** The site's configuration file, whether it exists or not (`npm run dev` follows it). */
export const assistantConfigFile = (env: Env, cwd: string) =>
  resolve(cwd, env.ASSISTANT_CONFIG?.trim() || DEFAULT_CONFIG_FILE);

/**
 * Reads the file `ASSISTANT_CONFIG` names (relative to `cwd`), or `assistant.config.yaml` in `cwd` when it exists;
 * without either, the spec's defaults. Throws an {@link AssistantConfigError} on any problem: nothing starts
 * half-configured.
 */
export function loadAssistantConfig(env: Env, cwd: string, options: { direct: boolean }): AssistantConfig {
  const named = env.ASSISTANT_CONFIG?.trim();
  const file = assistantConfigFile(env, cwd);
  if (!existsSync(file)) {
    if (named) throw new AssistantConfigError(file, [`ASSISTANT_CONFIG: ${shown(named)} names no file`]);
    return DEFAULT_ASSISTANT_CONFIG;
  }
  return parseAssistantConfig(readFileSync(file, 'utf8'), file, {
    ...options,
    smtp: Boolean(env.SMTP_URL?.trim()),
    identity: Boolean(env.IDENTITY_SECRET?.trim() || env.IDENTITY_PUBLIC_KEY?.trim()),
  });
}
