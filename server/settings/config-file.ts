// A configuration file as YAML with the line of every value, and its problems worded for the site owner: the key,
// the value's line, what is wrong.
import { type BaseIssue, getDotPath } from 'valibot';
import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import { ACTION_KEYS, INPUT_KEYS } from './config-actions.ts';
import { HANDOFF_KEYS, KEY_NAMES, SOURCE_KEYS } from './config-schema.ts';
import { closestName } from './setting-names.ts';

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
export function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/** The parsed file, and where each of its values is: every problem names its key and the value's line. */
export class SourceFile {
  private readonly lines = new LineCounter();
  readonly document: Document;

  constructor(readonly source: string) {
    this.document = parseDocument(source, { lineCounter: this.lines });
  }

  /**
   * The 1-based line of the value at `path` (its key's, for an empty value, or `at` the key); undefined when the file
   * has no such key.
   */
  lineOf(path: readonly (string | number)[], at: 'value' | 'key' = 'value'): number | undefined {
    const node = at === 'value' ? this.document.getIn(path, true) : undefined;
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
  problem(path: readonly (string | number)[], text: string, at: 'value' | 'key' = 'value'): string {
    const line = this.lineOf(path, at);
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

/**
 * Every key of the mapping at `path` that is not one of `known`, in the file's order, each at its own line (a key's
 * value may start on the next one): a schema stops at the first unknown key, and the owner would meet the next one
 * only after fixing it.
 */
function unknownKeys(file: SourceFile, path: readonly (string | number)[], known: readonly string[], what: string) {
  const map = path.length > 0 ? file.document.getIn(path, true) : file.document.contents;
  if (!isMap(map)) return [];
  return map.items.flatMap(({ key }) => {
    const name = isScalar(key) ? String(key.value) : undefined;
    if (name === undefined || known.includes(name)) return [];
    const likely = closestName(name, known);
    const hint = `${likely ? `did you mean ${likely}? ` : ''}the keys are ${known.join(', ')}`;
    return [file.problem([...path, name], `is not ${what} (${hint})`, 'key')];
  });
}

/** The keys the mapping at `path` may have, and what the message calls one of them. */
function knownKeys(file: SourceFile, path: readonly (string | number)[]): [readonly string[], string] {
  if (path[0] === 'handoff') return [HANDOFF_KEYS, 'a key of handoff'];
  if (path[0] === 'actions' && path.length === 2) return [ACTION_KEYS, 'a key of an action'];
  if (path[0] === 'actions') {
    // Only a string input has more than its type and description.
    const type = file.document.getIn([...path, 'type']);
    return [type === 'string' ? INPUT_KEYS : ['type', 'description'], `a key of ${String(type ?? 'an')} input`];
  }
  return [KEY_NAMES, 'a known key'];
}

function describeIssue(file: SourceFile, issue: BaseIssue<unknown>): string[] {
  const path = issue.path?.map((item) => item.key as string | number) ?? [];
  if (issue.type === 'strict_object') {
    const parent = path.slice(0, -1);
    // A required key that is not there (`expected` is its name; an unknown key's is `never`).
    if (issue.expected !== 'never') return [file.problem(parent, `has no ${String(path.at(-1))}`)];
    const unknown = unknownKeys(file, parent, ...knownKeys(file, parent));
    if (unknown.length > 0) return unknown;
  }
  // A knowledge entry fits neither form: misspelt keys are the likely cause, and then they are the ones to name.
  const input = issue.input as Record<string, unknown> | null;
  if (issue.type === 'union' && typeof input === 'object' && input !== null) {
    const unknown = unknownKeys(file, path, SOURCE_KEYS, 'a key of a knowledge source');
    if (unknown.length > 0) return unknown;
  }
  const commented = issue.input === null ? file.commentedOut(path) : undefined;
  if (commented) {
    return [
      file.problem(
        path,
        `is empty: YAML reads everything after # as a comment. Put the value in quotes: ${String(path.at(-1))}: "${commented}"`,
      ),
    ];
  }
  if (issue.type === 'max_length' && typeof issue.input === 'string') {
    return [
      file.problem(
        path,
        `${shown(issue.input)} is ${issue.input.length} characters long; the limit is ${issue.requirement}`,
      ),
    ];
  }
  return [file.problem(path, `${shown(issue.input)} ${issue.message}`)];
}

export function problemsOf(file: SourceFile, issues: readonly BaseIssue<unknown>[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const issue of issues) {
    const key = getDotPath(issue) ?? '(top level)';
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(...describeIssue(file, issue));
  }
  return problems;
}
