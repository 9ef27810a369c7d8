// An action as the site's `actions:` block declares it, checked (server/settings/config-actions.ts reads it): the
// type every file of the room takes, and the settings room names.

/** One input of an action: what the model must give, and the server checks before anything is called. */
export type ActionInput =
  | { type: 'string'; pattern?: string; enum?: string[]; maxLength?: number; description?: string }
  | { type: 'integer'; description?: string }
  | { type: 'boolean'; description?: string };

/** An input's value once checked. */
export type InputValue = string | number | boolean;
/** An action's inputs once checked: every declared input, nothing else. */
export type ActionInputs = Record<string, InputValue>;

/** What the owner declared; the server offers it to the model as a tool of the same name. */
export interface Action {
  /** `[a-z_]{1,40}`, unique on the site: the tool's name and the `X-Assistant-Action` header. */
  name: string;
  /** Told to the model: when to use the action. */
  description: string;
  method: 'GET' | 'POST';
  /** `https:` (or `http://127.0.0.1` / `http://localhost`), its `{placeholders}` naming inputs. */
  url: string;
  input: Record<string, ActionInput>;
  /** The host page's signed visitor token goes with the call, and the action is offered only with one. */
  identity?: 'required';
  /** Present: a write. The visitor confirms this text, filled with the inputs, before anything is called. */
  confirm?: string;
  /** The one-line note of the call, filled with inputs and the result's fields. */
  show?: string;
  /** Calls one visitor may make a day. */
  perVisitorPerDay?: number;
}

/** Every input may be this long at most; a string input without its own `maxLength` gets this one. */
export const MAX_INPUT_LENGTH = 200;

/** The `{name}` placeholders of a template, in order. */
export const placeholdersOf = (template: string): string[] =>
  [...template.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]);
