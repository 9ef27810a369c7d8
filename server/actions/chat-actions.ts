// What the chat room asks of the actions (issue 49): the tools one request may offer the model, and what becomes of
// a tool call the model makes. A read is called at once; a write is never called here, only turned into the owner's
// confirmation text and a signed token, which the visitor's Confirm takes to POST /api/actions/confirm.
import type { ActionConfirmation, ActionNote } from '../../contract/actions.ts';
import type { Counters } from '../limits/limits.ts';
import { takeDailyCall } from './action-limits.ts';
import type { Action, ActionInputs } from './action-types.ts';
import { callAction } from './call-action.ts';
import type { ConfirmTokens } from './confirm-token.ts';
import { checkArguments, toolDefinition } from './tool-schema.ts';
import type { CheckIdentity } from './visitor-identity.ts';

/** What the owner's counts hear of an action, never with its inputs or results. */
export type ActionEvent = 'called' | 'failed' | 'proposed' | 'confirmed' | 'cancelled' | 'refused';

export interface ChatActionsDeps {
  actions: readonly Action[];
  tokens: () => Promise<ConfirmTokens>;
  identity: CheckIdentity;
  counters: Counters;
  /** `ACTIONS_SECRET`: signs the calls to the owner's API. */
  secret?: string;
  timeoutMs?: number;
  count: (action: string, event: ActionEvent) => void;
}

/** What became of one tool call: the tool's result for the model, and what the page is told of it. */
export type ToolOutcome =
  | { kind: 'invalid'; result: string }
  | { kind: 'called'; result: string; note: ActionNote }
  | { kind: 'proposed'; result: string; confirmation: ActionConfirmation };

/** The actions one chat request may use: the tools offered, and how a call of one is run. */
export interface ActionOffer {
  tools: ReturnType<typeof toolDefinition>[];
  run(name: string, args: string): Promise<ToolOutcome>;
}

/** Who asks: the host page's visitor token (checked here), the client's key, and the conversation's id. */
export interface Asker {
  identity: unknown;
  clientKey: string;
  conversation: string;
}

/** Plain text of at most 200 characters: no control characters, whatever a template was filled with. */
const plain = (text: string) => text.replace(/\p{Cc}+/gu, ' ').slice(0, 200);

/** `template` with each `{name}` taken from `values` when it is a string, number or boolean there. */
function fill(template: string, values: Record<string, unknown>): string {
  return plain(
    template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => {
      const value = values[name];
      return ['string', 'number', 'boolean'].includes(typeof value) ? String(value) : whole;
    }),
  );
}

/** The fields of a result the `show` template may name: its top level, when it is an object. */
const fieldsOf = (result: unknown) =>
  typeof result === 'object' && result !== null && !Array.isArray(result) ? (result as Record<string, unknown>) : {};

/** The one-line note of an action done: its `show` filled with the result's top-level fields and the inputs, or its name. */
export function noteOf(action: Action, inputs: ActionInputs, result: unknown): ActionNote {
  const text = action.show ? fill(action.show, { ...fieldsOf(result), ...inputs }) : action.name;
  return { action: action.name, text, inputs };
}

/**
 * The actions for one request: an action with `identity: required` is offered only when `asker.identity` is a valid
 * visitor token, and is then called with it. The token never goes to the model; only the tools do.
 */
export async function offerActions(deps: ChatActionsDeps, asker: Asker): Promise<ActionOffer> {
  const visitor = await deps.identity(asker.identity);
  const offered = deps.actions.filter((action) => action.identity !== 'required' || visitor !== undefined);
  const visitorToken = visitor ? (asker.identity as string) : undefined;

  const read = async (action: Action, inputs: ActionInputs): Promise<ToolOutcome> => {
    const daily = await takeDailyCall(deps.counters, action, visitor?.sub ?? asker.clientKey);
    if (!daily.ok) {
      deps.count(action.name, 'refused');
      const result = JSON.stringify({ error: 'This action was used too often today by this visitor.' });
      return { kind: 'called', result, note: { action: action.name, text: action.name, inputs, failed: true } };
    }
    const called = await callAction(action, inputs, { secret: deps.secret, visitorToken, timeoutMs: deps.timeoutMs });
    deps.count(action.name, called.ok ? 'called' : 'failed');
    if (!called.ok) {
      const result = JSON.stringify({ error: `The action failed (${called.reason}).` });
      return { kind: 'called', result, note: { action: action.name, text: action.name, inputs, failed: true } };
    }
    // The result is data for the model, as JSON; what the page sees of it is only the note.
    return {
      kind: 'called',
      result: JSON.stringify({ result: called.result }),
      note: noteOf(action, inputs, called.result),
    };
  };

  const propose = async (action: Action & { confirm: string }, inputs: ActionInputs): Promise<ToolOutcome> => {
    const tokens = await deps.tokens();
    const now = Date.now();
    const token = tokens.issue(
      { action: action.name, inputs, conversation: asker.conversation, ...(visitor ? { sub: visitor.sub } : {}) },
      now,
    );
    deps.count(action.name, 'proposed');
    const text = fill(action.confirm, inputs);
    const confirmation = {
      action: action.name,
      text,
      token,
      conversation: asker.conversation,
      expires: now + tokens.lifetimeMs,
    };
    const result = JSON.stringify({
      status: 'awaiting_confirmation',
      note: 'Nothing was done. The visitor now sees the site’s own confirmation with Confirm and Cancel buttons.',
    });
    return { kind: 'proposed', result, confirmation };
  };

  return {
    tools: offered.map(toolDefinition),
    async run(name, args) {
      const action = offered.find((candidate) => candidate.name === name);
      if (!action) return { kind: 'invalid', result: JSON.stringify({ error: `No action is named ${name}.` }) };
      const checked = checkArguments(action, args);
      if (!checked.ok) return { kind: 'invalid', result: JSON.stringify({ error: checked.error }) };
      return action.confirm === undefined
        ? read(action, checked.inputs)
        : propose({ ...action, confirm: action.confirm }, checked.inputs);
    },
  };
}
