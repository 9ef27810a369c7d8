// The `actions:` block of the site's file (issue 49): the owner's API calls the model may ask for. The schema checks
// each action on its own; actionProblems checks what spans its keys (placeholders against inputs, unique names, the
// identity settings), on the file as written so that every mistake is said at once.
import * as v from 'valibot';
import { type Action, type ActionInput, MAX_INPUT_LENGTH, placeholdersOf } from '../actions/actions.ts';

export const MAX_ACTIONS = 10;
const MAX_INPUTS = 20;
const MAX_ENUM_VALUES = 50;
const MAX_PER_VISITOR_PER_DAY = 100_000;

const text = (max: number) =>
  v.pipe(
    v.string(`must be text of 1 to ${max} characters`),
    v.check((value) => value.trim() !== '', `must be text of 1 to ${max} characters, not blank`),
    v.maxLength(max, `must be text of 1 to ${max} characters`),
  );
const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
};

/** JSON Schema's patterns are ECMA-262 with the `u` flag: the same syntax the validator and the model's schema use. */
const compiles = (pattern: string) => {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
};

const NAME = /^[a-z_]{1,40}$/;
const INPUT_NAME = /^[a-z_][a-z0-9_]{0,39}$/;
/** The `{name}` of a placeholder; any other brace in a url is a mistake. */
const PLACEHOLDER = /\{[A-Za-z0-9_]+\}/g;

/**
 * `https:`, or `http:` to this machine (an owner's API under test). Placeholders stand for path or query text only:
 * the scheme, host and port are the owner's, never an input's.
 */
export function actionUrlProblem(url: string): string | undefined {
  const forms = 'must be an https: address (or http://127.0.0.1 or http://localhost), such as https://shop.example/api';
  const parsed = URL.parse(url.replace(PLACEHOLDER, 'x'));
  if (!parsed) return forms;
  const local = parsed.hostname === '127.0.0.1' || parsed.hostname === 'localhost';
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && local)) return forms;
  if (/[{}]/.test(url.replace(PLACEHOLDER, '')))
    return "has a { or } that is not around an input's name ({order_number})";
  if (parsed.hash || url.includes('#')) return 'must have no #fragment (it never reaches the API)';
  if (parsed.username || parsed.password) return 'must not carry a user or password (sign calls with ACTIONS_SECRET)';
  const origin = /^[a-z]+:\/\/[^/?#]*/i.exec(url)?.[0] ?? '';
  if (origin.includes('{')) return 'may have placeholders only in its path and query, never in its host or port';
  return undefined;
}

const description = v.optional(text(MAX_INPUT_LENGTH));
const INPUT_FORMS = 'must be { type: string }, { type: integer } or { type: boolean }';

/** One input: a string (pattern, enum, maxLength), a whole number or a switch. */
const inputSchema = v.variant(
  'type',
  [
    v.strictObject(
      {
        type: v.literal('string'),
        pattern: v.optional(
          v.pipe(
            v.string('must be a regular expression'),
            v.check(compiles, 'is not a regular expression that compiles'),
          ),
        ),
        enum: v.optional(
          v.pipe(
            v.array(text(MAX_INPUT_LENGTH), `must be a list of 1 to ${MAX_ENUM_VALUES} texts`),
            v.minLength(1, `must be a list of 1 to ${MAX_ENUM_VALUES} texts`),
            v.maxLength(MAX_ENUM_VALUES, `must be a list of 1 to ${MAX_ENUM_VALUES} texts`),
          ),
        ),
        maxLength: v.optional(wholeNumber(1, MAX_INPUT_LENGTH)),
        description,
      },
      'is not a key of an input',
    ),
    v.strictObject({ type: v.literal('integer'), description }, 'is not a key of an input'),
    v.strictObject({ type: v.literal('boolean'), description }, 'is not a key of an input'),
  ],
  INPUT_FORMS,
);

const actionSchema = v.strictObject(
  {
    name: v.pipe(v.string('must be 1 to 40 letters a-z or _'), v.regex(NAME, 'must be 1 to 40 letters a-z or _')),
    description: text(500),
    method: v.picklist(['GET', 'POST'], 'must be GET or POST'),
    url: v.pipe(
      v.string('must be an https: address'),
      v.rawCheck(({ dataset, addIssue }) => {
        const problem = dataset.typed ? actionUrlProblem(dataset.value) : undefined;
        if (problem) addIssue({ message: problem });
      }),
    ),
    input: v.optional(
      v.pipe(
        v.record(
          v.pipe(v.string(), v.regex(INPUT_NAME, 'is not an input name (a-z, 0-9 and _, up to 40)')),
          inputSchema,
          INPUT_FORMS,
        ),
        v.check((input) => Object.keys(input).length <= MAX_INPUTS, `must have at most ${MAX_INPUTS} inputs`),
      ),
    ),
    identity: v.optional(v.literal('required', 'must be required (or left out)')),
    confirm: v.optional(text(300)),
    show: v.optional(text(200)),
    per_visitor_per_day: v.optional(wholeNumber(1, MAX_PER_VISITOR_PER_DAY)),
  },
  'is not a key of an action',
);

/** `actions:`: up to 10 calls to the owner's API that the model may ask for (server/actions/). */
export const actionsSchema = v.pipe(
  v.array(actionSchema, `must be a list of 1 to ${MAX_ACTIONS} actions`),
  v.minLength(1, `must be a list of 1 to ${MAX_ACTIONS} actions`),
  v.maxLength(MAX_ACTIONS, `must be a list of 1 to ${MAX_ACTIONS} actions`),
);
/** The keys of an action, and of one of its inputs. */
export const ACTION_KEYS = Object.keys(actionSchema.entries);
export const INPUT_KEYS = ['type', 'pattern', 'enum', 'maxLength', 'description'];

type Raw = Record<string, unknown>;
/** A problem as the error lists it, with the line of the value at `path` (SourceFile.problem, config-file.ts). */
type Problem = (path: (string | number)[], text: string, at?: 'value' | 'key') => string;
const isMapping = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Placeholders of `template` that name no input, as one problem at `path`. */
function strayPlaceholders(problem: Problem, path: (string | number)[], template: unknown, inputs: string[]) {
  if (typeof template !== 'string') return [];
  const stray = [...new Set(placeholdersOf(template))].filter((name) => !inputs.includes(name));
  if (stray.length === 0) return [];
  const known = inputs.length > 0 ? `its inputs are ${inputs.join(', ')}` : 'it has no input';
  return [problem(path, `${stray.map((name) => `{${name}}`).join(', ')} names no input of the action (${known})`)];
}

/**
 * What spans an action's keys, read from the file as written (beside the schema's own problems): url and confirm
 * placeholders that name no input, a GET input the url never sends, a name used twice, `identity: required` with no
 * way to check a visitor token (`identity`: IDENTITY_SECRET or IDENTITY_PUBLIC_KEY is set).
 */
export function actionProblems(problem: Problem, actions: unknown, { identity }: { identity: boolean }): string[] {
  if (!Array.isArray(actions)) return [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const [n, action] of actions.entries()) {
    if (!isMapping(action)) continue;
    const inputs = isMapping(action.input) ? Object.keys(action.input) : [];
    problems.push(...strayPlaceholders(problem, ['actions', n, 'url'], action.url, inputs));
    problems.push(...strayPlaceholders(problem, ['actions', n, 'confirm'], action.confirm, inputs));
    // A GET has no body: an input that is not in its url would be asked of the visitor and never sent.
    if (action.method === 'GET' && typeof action.url === 'string') {
      const sent = placeholdersOf(action.url);
      for (const name of inputs.filter((input) => !sent.includes(input))) {
        problems.push(
          problem(['actions', n, 'input', name], `is never sent: a GET has no body; put {${name}} in the url`, 'key'),
        );
      }
    }
    if (typeof action.name === 'string') {
      const first = seen.get(action.name);
      if (first === undefined) seen.set(action.name, n);
      else problems.push(problem(['actions', n, 'name'], `"${action.name}" is the name of actions.${first} too`));
    }
    if (action.identity === 'required' && !identity) {
      problems.push(
        problem(
          ['actions', n, 'identity'],
          "needs IDENTITY_SECRET (HS256) or IDENTITY_PUBLIC_KEY (RS256/ES256) to check the host page's visitor token",
        ),
      );
    }
  }
  return problems;
}

/** The checked entries as the server uses them. */
export function toActions(entries: v.InferOutput<typeof actionsSchema>): Action[] {
  return entries.map((entry) => ({
    name: entry.name,
    description: entry.description.trim(),
    method: entry.method,
    url: entry.url,
    input: (entry.input ?? {}) as Record<string, ActionInput>,
    ...(entry.identity ? { identity: entry.identity } : {}),
    ...(entry.confirm === undefined ? {} : { confirm: entry.confirm.trim() }),
    ...(entry.show === undefined ? {} : { show: entry.show.trim() }),
    ...(entry.per_visitor_per_day === undefined ? {} : { perVisitorPerDay: entry.per_visitor_per_day }),
  }));
}
