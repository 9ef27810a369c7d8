import { describe, expect, it } from 'vitest';
import type { Action } from './action-types.ts';
import { checkArguments, toolDefinition } from './tool-schema.ts';

const callback: Action = {
  name: 'request_callback',
  description: 'Ask the shop to call the visitor back',
  method: 'POST',
  url: 'https://shop.example/api/callbacks',
  input: {
    phone: { type: 'string', pattern: '^\\+?[0-9 ]{6,20}$', description: 'The number to call' },
    when: { type: 'string', enum: ['morning', 'afternoon'] },
    note: { type: 'string', maxLength: 10 },
    adults: { type: 'integer' },
    urgent: { type: 'boolean' },
  },
  confirm: 'Ask the shop to call {phone} in the {when}?',
};

const valid = { phone: '+44 1234 5678', when: 'morning', note: 'gate code', adults: 2, urgent: false };
const check = (args: unknown) => checkArguments(callback, typeof args === 'string' ? args : JSON.stringify(args));

describe("an action's tool", () => {
  it('is an OpenAI function tool with a strict schema: every input required, nothing else', () => {
    expect(toolDefinition(callback)).toEqual({
      type: 'function',
      function: {
        name: 'request_callback',
        description: 'Ask the shop to call the visitor back',
        strict: true,
        parameters: {
          type: 'object',
          properties: {
            phone: {
              type: 'string',
              description: 'The number to call. At most 200 characters.',
              pattern: '^\\+?[0-9 ]{6,20}$',
            },
            when: { type: 'string', description: 'At most 200 characters.', enum: ['morning', 'afternoon'] },
            note: { type: 'string', description: 'At most 10 characters.' },
            adults: { type: 'integer' },
            urgent: { type: 'boolean' },
          },
          required: ['phone', 'when', 'note', 'adults', 'urgent'],
          additionalProperties: false,
        },
      },
    });
    const none = toolDefinition({ ...callback, input: {} }).function.parameters;
    expect(none).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false });
  });
});

describe("checking the model's arguments", () => {
  it('takes valid arguments as the inputs', () => {
    expect(check(valid)).toEqual({ ok: true, inputs: valid });
  });

  it.each([
    ['a wrong type', { ...valid, adults: '2' }, 'adults: must be a whole number'],
    ['a fraction for an integer', { ...valid, adults: 2.5 }, 'adults: must be a whole number'],
    ['a pattern miss', { ...valid, phone: 'call me' }, 'phone: must match the pattern ^\\+?[0-9 ]{6,20}$'],
    ['an enum miss', { ...valid, when: 'evening' }, 'when: must be one of morning, afternoon'],
    ['too long', { ...valid, note: 'x'.repeat(11) }, 'note: must be at most 10 characters'],
    ['an extra key', { ...valid, account: 'victim' }, 'account: is not an input of this action'],
    ['a missing key', { phone: valid.phone, when: 'morning', note: '', adults: 1 }, 'urgent: is missing'],
    ['a boolean as text', { ...valid, urgent: 'yes' }, 'urgent: must be true or false'],
  ])('refuses %s, saying which input and why', (_, args, problem) => {
    const result = check(args);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(problem);
    expect(!result.ok && result.error).toMatch(/^Invalid arguments for request_callback: /);
  });

  it('caps a string without its own maxLength at 200 characters', () => {
    const free: Action = { ...callback, input: { text: { type: 'string' } } };
    expect(checkArguments(free, JSON.stringify({ text: 'x'.repeat(200) })).ok).toBe(true);
    expect(checkArguments(free, JSON.stringify({ text: 'x'.repeat(201) }))).toEqual({
      ok: false,
      error: 'Invalid arguments for request_callback: text: must be at most 200 characters.',
    });
  });

  it('refuses arguments that are not a JSON object', () => {
    for (const text of ['{"phone": ', 'not json', '', `{"note": "${'x'.repeat(20_000)}"}`]) {
      expect(check(text)).toEqual({ ok: false, error: 'The arguments are not a JSON object.' });
    }
    for (const text of ['[1, 2]', '"text"', '42', 'null']) {
      expect(check(text).ok).toBe(false);
    }
  });
});
