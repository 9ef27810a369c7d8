// A configuration file as YAML with the line of every value, and its problems worded for the site owner: the key,
// the value's line, what is wrong.
import { type BaseIssue, getDotPath } from 'valibot';
import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import { KEY_NAMES, KEYS, SOURCE_KEYS } from './config-schema.ts';
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

function describeIssue(file: SourceFile, issue: BaseIssue<unknown>): string {
  const path = issue.path?.map((item) => item.key as string | number) ?? [];
  if (issue.type === 'strict_object') {
    const likely = closestName(String(path.at(-1)), KEY_NAMES);
    return file.problem(path, `is not a known key (${likely ? `did you mean ${likely}? ` : ''}the keys are ${KEYS})`);
  }
  // A knowledge entry fits neither form: a misspelt key is the likely cause, and then it is the one to name.
  const input = issue.input as Record<string, unknown> | null;
  if (issue.type === 'union' && typeof input === 'object' && input !== null) {
    const unknown = Object.keys(input).find((key) => !SOURCE_KEYS.includes(key));
    if (unknown !== undefined) {
      const likely = closestName(unknown, SOURCE_KEYS);
      return file.problem(
        [...path, unknown],
        `is not a key of a knowledge source (${likely ? `did you mean ${likely}? ` : ''}the keys are ${SOURCE_KEYS.join(', ')})`,
      );
    }
  }
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

export function problemsOf(file: SourceFile, issues: readonly BaseIssue<unknown>[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const issue of issues) {
    const key = getDotPath(issue) ?? '(top level)';
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(describeIssue(file, issue));
  }
  return problems;
}
