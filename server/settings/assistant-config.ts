import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as v from 'valibot';
import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import {
  DEFAULT_PAGE_SETTINGS,
  MAX_HISTORY,
  MAX_LIMIT_MESSAGE_LENGTH,
  MAX_STARTER_LENGTH,
  MAX_STARTERS,
  type PageSettings,
} from '../../contract/page-settings.ts';
import { LANGUAGES, type Language, matchLanguage } from '../../locales/languages.ts';
import { ACCENT_FORMS, type AccentShades, readAccent } from './accent.ts';
import type { Env } from './env-values.ts';

/** The file read when `ASSISTANT_CONFIG` is unset, from the working directory, when it exists. */
export const DEFAULT_CONFIG_FILE = 'assistant.config.yaml';

const MAX_TITLE_LENGTH = 60;
const MAX_WELCOME_LENGTH = 2000;
const MAX_INSTRUCTIONS_LENGTH = 8000;

const MAX_KNOWLEDGE_SOURCES = 20;

/** A source's address: the library links only to web pages, so anything but `http:` and `https:` is refused here. */
const webAddress = v.pipe(
  v.string('must be an http: or https: address'),
  v.check((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an http: or https: address'),
);

/** One `knowledge:` entry: a folder published at `url`, or a sitemap (server/knowledge/knowledge.ts reads both). */
const knowledgeSource = v.union(
  [
    v.strictObject({ path: v.pipe(v.string('must be a folder'), v.nonEmpty('must be a folder')), url: webAddress }),
    v.strictObject({ sitemap: webAddress }),
  ],
  'must be a folder and its address ({ path, url }) or a sitemap ({ sitemap })',
);

const text = (max: number) =>
  v.pipe(
    v.string(`must be text of 1 to ${max} characters`),
    v.check((value) => value.trim() !== '', `must be text of 1 to ${max} characters, not blank`),
    v.maxLength(max, `must be text of 1 to ${max} characters`),
  );

/**
 * The configuration file's schema: the one place its keys, types and limits are written (docs/configuration.md
 * describes each). Every message says what is allowed.
 */
const configSchema = v.strictObject(
  {
    title: v.optional(text(MAX_TITLE_LENGTH)),
    welcome: v.optional(text(MAX_WELCOME_LENGTH)),
    starters: v.optional(
      v.pipe(
        v.array(text(MAX_STARTER_LENGTH), `must be a list of up to ${MAX_STARTERS} questions`),
        v.maxLength(MAX_STARTERS, `must be a list of up to ${MAX_STARTERS} questions`),
      ),
    ),
    instructions: v.optional(text(MAX_INSTRUCTIONS_LENGTH)),
    limit_message: v.optional(text(MAX_LIMIT_MESSAGE_LENGTH)),
    accent: v.optional(v.string(`must be ${ACCENT_FORMS}`)),
    language: v.optional(
      v.pipe(
        v.string(`must be one of ${LANGUAGES.join(', ')} (or a regional variant of one)`),
        v.check(
          (tag) => matchLanguage(tag) !== undefined,
          `must be one of ${LANGUAGES.join(', ')} (or a regional variant of one)`,
        ),
      ),
    ),
    knowledge: v.optional(
      v.pipe(
        v.array(knowledgeSource, `must be a list of up to ${MAX_KNOWLEDGE_SOURCES} sources`),
        v.minLength(1, `must be a list of up to ${MAX_KNOWLEDGE_SOURCES} sources`),
        v.maxLength(MAX_KNOWLEDGE_SOURCES, `must be a list of up to ${MAX_KNOWLEDGE_SOURCES} sources`),
      ),
    ),
    history: v.optional(
      v.pipe(
        v.number(`must be a whole number from 0 to ${MAX_HISTORY}`),
        v.integer(`must be a whole number from 0 to ${MAX_HISTORY}`),
        v.minValue(0, `must be a whole number from 0 to ${MAX_HISTORY}`),
        v.maxValue(MAX_HISTORY, `must be a whole number from 0 to ${MAX_HISTORY}`),
      ),
    ),
    persist: v.optional(v.picklist(['off', 'tab'], 'must be off or tab')),
    page_context: v.optional(v.boolean('must be true or false')),
  },
  'is not a known key',
);

type ConfigFile = v.InferOutput<typeof configSchema>;
const KEYS = Object.keys(configSchema.entries).join(', ');

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
  knowledge?: v.InferOutput<typeof knowledgeSource>[];
}

/** The configuration of a site with no file: exactly the spec. */
export const DEFAULT_ASSISTANT_CONFIG: AssistantConfig = { page: DEFAULT_PAGE_SETTINGS };

/** Thrown with every problem of the file at once, each naming its key, its value and what is allowed. */
export class AssistantConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`Invalid configuration in ${file}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'AssistantConfigError';
  }
}

/** A value as the message shows it: short, and on one line. */
function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/** The parsed file, and where each of its values is: every problem names its key and the value's line. */
class SourceFile {
  private readonly lines = new LineCounter();
  readonly document: Document;

  constructor(readonly source: string) {
    this.document = parseDocument(source, { lineCounter: this.lines });
  }

  /** The 1-based line of the value at `path` (its key's, for an empty value); undefined when the file has no such key. */
  lineOf(path: readonly (string | number)[]): number | undefined {
    const node = this.document.getIn(path, true);
    let offset = isNode(node) ? node.range?.[0] : undefined;
    if (offset === undefined) {
      const parent = path.length > 1 ? this.document.getIn(path.slice(0, -1), true) : this.document.contents;
      const pair = isMap(parent)
        ? parent.items.find((item) => isScalar(item.key) && item.key.value === path.at(-1))
        : undefined;
      offset = isNode(pair?.key) ? pair.key.range?.[0] : undefined;
    }
    return offset === undefined ? undefined : this.lines.linePos(offset).line;
  }

  /** The problem as the error lists it: the key, the value's line, what is wrong. */
  problem(path: readonly (string | number)[], text: string): string {
    const line = this.lineOf(path);
    return `${path.length > 0 ? path.join('.') : '(top level)'}${line === undefined ? '' : ` (line ${line})`}: ${text}`;
  }

  /**
   * A value YAML read as nothing because a `#` starts a comment (`accent: #15803d`): what the line held after the key,
   * for the hint to quote it.
   */
  commentedOut(path: readonly (string | number)[]): string | undefined {
    const line = this.lineOf(path);
    if (line === undefined) return undefined;
    const text = this.source.split(/\r?\n/)[line - 1] ?? '';
    return /:\s+(#\S*)/.exec(text)?.[1];
  }
}

function describeIssue(file: SourceFile, issue: v.BaseIssue<unknown>): string {
  const path = issue.path?.map((item) => item.key as string | number) ?? [];
  if (issue.type === 'strict_object') return file.problem(path, `is not a known key (the keys are ${KEYS})`);
  const commented = issue.input === null ? file.commentedOut(path) : undefined;
  if (commented) {
    return file.problem(
      path,
      `is empty: YAML reads everything after # as a comment. Put the value in quotes: ${String(path.at(-1))}: "${commented}"`,
    );
  }
  if (issue.type === 'max_length' && typeof issue.input === 'string') {
    return file.problem(
      path,
      `${shown(issue.input)} is ${issue.input.length} characters long; the limit is ${issue.requirement}`,
    );
  }
  return file.problem(path, `${shown(issue.input)} ${issue.message}`);
}

function problemsOf(file: SourceFile, issues: readonly v.BaseIssue<unknown>[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const issue of issues) {
    const key = v.getDotPath(issue) ?? '(top level)';
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(describeIssue(file, issue));
  }
  return problems;
}

/**
 * Checks the text of a configuration file (YAML; JSON is YAML too). `direct` is a build whose page calls the provider
 * itself: it refuses `instructions`, `history` and `knowledge`, which the page would then have to carry.
 */
export function parseAssistantConfig(source: string, file: string, { direct }: { direct: boolean }): AssistantConfig {
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
    for (const key of ['instructions', 'history', 'knowledge', 'page_context'] as const) {
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
  if (problems.length > 0) throw new AssistantConfigError(file, problems);

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
    },
    ...(accent ? { accent } : {}),
    ...(values.language === undefined ? {} : { language: matchLanguage(values.language) }),
    ...(values.instructions === undefined ? {} : { instructions: values.instructions }),
    ...(values.knowledge === undefined
      ? {}
      : {
          knowledge: values.knowledge.map((source) =>
            'path' in source ? { path: resolve(dirname(file), source.path), url: source.url } : source,
          ),
        }),
  };
}

/**
 * Reads the file `ASSISTANT_CONFIG` names (relative to `cwd`), or `assistant.config.yaml` in `cwd` when it exists;
 * without either, the spec's defaults. Throws an {@link AssistantConfigError} on any problem: nothing starts
 * half-configured.
 */
export function loadAssistantConfig(env: Env, cwd: string, options: { direct: boolean }): AssistantConfig {
  const named = env.ASSISTANT_CONFIG?.trim();
  const file = resolve(cwd, named || DEFAULT_CONFIG_FILE);
  if (!existsSync(file)) {
    if (named) throw new AssistantConfigError(file, [`ASSISTANT_CONFIG: ${shown(named)} names no file`]);
    return DEFAULT_ASSISTANT_CONFIG;
  }
  return parseAssistantConfig(readFileSync(file, 'utf8'), file, options);
}
