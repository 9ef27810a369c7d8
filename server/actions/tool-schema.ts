// An action as the model sees it (an OpenAI tool with a strict JSON Schema) and the check of what the model sends
// back: the schema asks, valibot decides. Strict mode makes a provider follow the schema, but a provider without it,
// or a model that ignores it, can send anything: nothing reaches the owner's API unchecked.
import * as v from 'valibot';
import { type Action, type ActionInput, type ActionInputs, MAX_INPUT_LENGTH } from './action-types.ts';

/** Arguments longer than this are not read: ten inputs of 200 characters fit many times over. */
const MAX_ARGUMENTS_LENGTH = 16_384;

/** The JSON Schema of one input, in the subset strict mode takes (a length limit is said in words, and checked here). */
function propertyOf(input: ActionInput): Record<string, unknown> {
  if (input.type !== 'string') {
    return { type: input.type, ...(input.description ? { description: input.description } : {}) };
  }
  const limit = input.maxLength ?? MAX_INPUT_LENGTH;
  const said = input.description?.replace(/([^.!?])$/, '$1.');
  const description = [said, `At most ${limit} characters.`].filter(Boolean).join(' ');
  return {
    type: 'string',
    description,
    ...(input.pattern === undefined ? {} : { pattern: input.pattern }),
    ...(input.enum === undefined ? {} : { enum: input.enum }),
  };
}

/** The tool the model is offered: every input required and nothing else, as OpenAI's strict mode requires. */
export function toolDefinition(action: Action) {
  const names = Object.keys(action.input);
  return {
    type: 'function' as const,
    function: {
      name: action.name,
      description: action.description,
      strict: true,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(names.map((name) => [name, propertyOf(action.input[name])])),
        required: names,
        additionalProperties: false,
      },
    },
  };
}

/** The valibot schema of one input: the same rules as its JSON Schema, and the length limit. */
function checkOf(input: ActionInput) {
  if (input.type === 'integer')
    return v.pipe(v.number('must be a whole number'), v.safeInteger('must be a whole number'));
  if (input.type === 'boolean') return v.boolean('must be true or false');
  const limit = input.maxLength ?? MAX_INPUT_LENGTH;
  const rules: v.PipeItem<string, string, v.BaseIssue<unknown>>[] = [
    v.maxLength(limit, `must be at most ${limit} characters`),
  ];
  if (input.pattern !== undefined)
    rules.push(v.regex(new RegExp(input.pattern, 'u'), `must match the pattern ${input.pattern}`));
  if (input.enum !== undefined) rules.push(v.picklist(input.enum, `must be one of ${input.enum.join(', ')}`));
  return v.pipe(v.string('must be text'), ...rules);
}

type ArgumentsCheck = (text: string) => { ok: true; inputs: ActionInputs } | { ok: false; error: string };

const checks = new WeakMap<Action, ArgumentsCheck>();

/** The check of an action's arguments, built once per action. */
function argumentsCheck(action: Action): ArgumentsCheck {
  const schema = v.strictObject(
    Object.fromEntries(Object.entries(action.input).map(([name, input]) => [name, checkOf(input)])),
    'is not an input of this action',
  );
  return (text) => {
    let data: unknown;
    try {
      data = text.length > MAX_ARGUMENTS_LENGTH ? undefined : JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (data === undefined) return { ok: false, error: 'The arguments are not a JSON object.' };
    const result = v.safeParse(schema, data, { abortEarly: false });
    if (result.success) return { ok: true, inputs: result.output as ActionInputs };
    const problems = result.issues.map((issue) => {
      const path = v.getDotPath(issue);
      const missing = issue.type === 'strict_object' && issue.expected !== 'never';
      return path ? `${path}: ${missing ? 'is missing' : issue.message}` : 'The arguments must be a JSON object.';
    });
    return { ok: false, error: `Invalid arguments for ${action.name}: ${problems.join('; ')}.` };
  };
}

/**
 * Checks the arguments the model gave for `action` (the JSON text of its tool call): the inputs, each of the declared
 * type and rules, every one present and nothing else; or an error worded for the model, to try once more.
 */
export function checkArguments(action: Action, text: string): ReturnType<ArgumentsCheck> {
  let check = checks.get(action);
  if (!check) {
    check = argumentsCheck(action);
    checks.set(action, check);
  }
  return check(text);
}
