import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseAssistantConfig } from './assistant-config.ts';
import { AssistantConfigError } from './config-file.ts';
import { readActionsEnv } from './env-actions.ts';

const proxy = { direct: false, identity: true };

function problems(source: string, options: { direct: boolean; identity?: boolean } = proxy): string[] {
  try {
    parseAssistantConfig(source, 'test.yaml', options);
  } catch (error) {
    if (error instanceof AssistantConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

/** The issue's two actions, as an owner writes them. */
const ISSUE_EXAMPLE = [
  'actions:',
  '  - name: order_status',
  "    description: Look up the status of one of the visitor's orders by its number",
  '    method: GET',
  '    url: https://shop.example/api/orders/{order_number}',
  '    input:',
  '      order_number: { type: string, pattern: "^[0-9]{6}$", description: The six-digit order number }',
  '    identity: required',
  '    show: "Order {order_number}: {status}"',
  '  - name: request_callback',
  '    description: Ask the shop to call the visitor back',
  '    method: POST',
  '    url: https://shop.example/api/callbacks',
  '    input:',
  '      phone: { type: string, pattern: "^\\\\+?[0-9 ]{6,20}$" }',
  '      when: { type: string, enum: [morning, afternoon] }',
  '    confirm: "Ask the shop to call {phone} in the {when}?"',
  '    per_visitor_per_day: 3',
].join('\n');

/** One action with `lines` in place of its usual keys (each given as `key: value`). */
const action = (...lines: string[]) =>
  ['actions:', '  - name: lookup', '    description: Look something up', ...lines.map((line) => `    ${line}`)].join(
    '\n',
  );

describe('actions:', () => {
  it("reads the issue's example: a read with identity and a write with a confirmation", () => {
    const config = parseAssistantConfig(ISSUE_EXAMPLE, 'a.yaml', proxy);
    expect(config.actions).toEqual([
      {
        name: 'order_status',
        description: "Look up the status of one of the visitor's orders by its number",
        method: 'GET',
        url: 'https://shop.example/api/orders/{order_number}',
        input: { order_number: { type: 'string', pattern: '^[0-9]{6}$', description: 'The six-digit order number' } },
        identity: 'required',
        show: 'Order {order_number}: {status}',
      },
      {
        name: 'request_callback',
        description: 'Ask the shop to call the visitor back',
        method: 'POST',
        url: 'https://shop.example/api/callbacks',
        input: {
          phone: { type: 'string', pattern: '^\\+?[0-9 ]{6,20}$' },
          when: { type: 'string', enum: ['morning', 'afternoon'] },
        },
        confirm: 'Ask the shop to call {phone} in the {when}?',
        perVisitorPerDay: 3,
      },
    ]);
  });

  it('takes http: to this machine only, integer and boolean inputs, and an action with no input', () => {
    const config = parseAssistantConfig(
      action(
        'method: POST',
        'url: http://127.0.0.1:8080/api/{n}',
        'input: { n: { type: integer }, urgent: { type: boolean, description: Whether it is urgent } }',
      ),
      'a.yaml',
      proxy,
    );
    expect(config.actions?.[0].input).toEqual({
      n: { type: 'integer' },
      urgent: { type: 'boolean', description: 'Whether it is urgent' },
    });
    expect(
      parseAssistantConfig(action('method: GET', 'url: http://localhost/hours'), 'a.yaml', proxy).actions?.[0].input,
    ).toEqual({});
  });

  it.each([
    [
      'method: GET\n    url: https://a.example/x\n    name2: x',
      /^actions\.0\.name2 \(line 6\): is not a key of an action \(did you mean name\?/,
    ],
    ['method: PUT\n    url: https://a.example/x', /^actions\.0\.method \(line 4\): "PUT" must be GET or POST/],
    [
      'method: GET\n    url: http://shop.example/x',
      /^actions\.0\.url \(line 5\): "http:\/\/shop\.example\/x" must be an https: address \(or http:\/\/127\.0\.0\.1/,
    ],
    ['method: GET\n    url: ftp://shop.example/x', /^actions\.0\.url \(line 5\): .* must be an https: address/],
    [
      'method: GET\n    url: https://{host}.example/x\n    input: { host: { type: string } }',
      /^actions\.0\.url \(line 5\): .* may have placeholders only in its path and query/,
    ],
    ['method: GET\n    url: https://a.example/x#top', /^actions\.0\.url \(line 5\): .* must have no #fragment/],
    [
      'method: GET\n    url: https://a.example/{x y}',
      /^actions\.0\.url \(line 5\): .* has a \{ or \} that is not around an input's name/,
    ],
    [
      'method: GET\n    url: https://a.example/{n}',
      /^actions\.0\.url \(line 5\): \{n\} names no input of the action \(it has no input\)/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    input: { a: { type: date } }',
      /^actions\.0\.input\.a\.type \(line 6\): "date" must be \{ type: string \}, \{ type: integer \} or \{ type: boolean \}/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    input: { a: { type: string, pattern: "([0-9]" } }',
      /^actions\.0\.input\.a\.pattern \(line 6\): "\(\[0-9\]" is not a regular expression that compiles/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    input: { a: { type: string, maxLength: 201 } }',
      /^actions\.0\.input\.a\.maxLength \(line 6\): 201 must be a whole number from 1 to 200/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    input: { a: { type: string, enum: [] } }',
      /^actions\.0\.input\.a\.enum \(line 6\): \[\] must be a list of 1 to 50 texts/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    input: { a: { type: integer, pattern: "x" } }',
      /^actions\.0\.input\.a\.pattern \(line 6\): is not a key of integer input \(the keys are type, description\)/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    input: { A-1: { type: integer } }',
      /^actions\.0\.input\.A-1 \(line 6\): .*is not an input name/,
    ],
    [
      'method: GET\n    url: https://a.example/x\n    input: { a: { type: integer } }',
      /^actions\.0\.input\.a \(line 6\): is never sent: a GET has no body; put \{a\} in the url/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    input: { a: { type: integer } }\n    confirm: "Send {a} to {b}?"',
      /^actions\.0\.confirm \(line 7\): \{b\} names no input of the action \(its inputs are a\)/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    identity: optional',
      /^actions\.0\.identity \(line 6\): "optional" must be required/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    per_visitor_per_day: 0',
      /^actions\.0\.per_visitor_per_day \(line 6\): 0 must be a whole number from 1 to 100000/,
    ],
    [
      'method: POST\n    url: https://a.example/x\n    per_visitor_per_day: 2.5',
      /^actions\.0\.per_visitor_per_day \(line 6\): 2\.5 must be a whole number/,
    ],
    ['url: https://a.example/x', /^actions\.0 \(line 2\): has no method$/],
  ])('refuses %j, naming the key and its line', (lines, message) => {
    expect(problems(action(lines))).toEqual([expect.stringMatching(message)]);
  });

  it('refuses a bad name, a missing description, a name used twice and more than ten actions', () => {
    const twice = [
      'actions:',
      '  - { name: Order-Status, method: GET, url: "https://a.example/x" }',
      '  - { name: same, description: One, method: GET, url: "https://a.example/x" }',
      '  - { name: same, description: Two, method: GET, url: "https://a.example/y" }',
    ];
    expect(problems(twice.join('\n'))).toEqual([
      expect.stringMatching(/^actions\.0\.name \(line 2\): "Order-Status" must be 1 to 40 letters a-z or _/),
      'actions.0 (line 2): has no description',
      'actions.2.name (line 4): "same" is the name of actions.1 too',
    ]);
    const eleven = Array.from(
      { length: 11 },
      (_, n) => `  - { name: a${'_'.repeat(n)}, description: D, method: GET, url: "https://a.example/x" }`,
    );
    expect(problems(['actions:', ...eleven].join('\n'))).toEqual([
      expect.stringMatching(/^actions \(line 2\): .* must be a list of 1 to 10 actions/),
    ]);
    expect(
      problems(`actions:\n  - { name: ${'a'.repeat(41)}, description: D, method: GET, url: "https://a.example/x" }`),
    ).toEqual([expect.stringMatching(/^actions\.0\.name \(line 2\): "a{41}" must be 1 to 40 letters/)]);
  });

  it('names every mistake at once: the schema and the cross-checks together, each with its line', () => {
    const source = action('method: DELETE', 'url: https://a.example/{missing}', 'confirm: "Really {other}?"');
    expect(problems(source)).toEqual([
      expect.stringMatching(/^actions\.0\.method \(line 4\): "DELETE"/),
      expect.stringMatching(/^actions\.0\.url \(line 5\): \{missing\} names no input/),
      expect.stringMatching(/^actions\.0\.confirm \(line 6\): \{other\} names no input/),
    ]);
  });

  it('stops the start when an action needs identity and neither identity setting is set', () => {
    expect(problems(ISSUE_EXAMPLE, { direct: false, identity: false })).toEqual([
      "actions.0.identity (line 8): needs IDENTITY_SECRET (HS256) or IDENTITY_PUBLIC_KEY (RS256/ES256) to check the host page's visitor token",
    ]);
  });

  it('is refused by a direct-mode build, whose page would carry it', () => {
    expect(problems(ISSUE_EXAMPLE, { direct: true, identity: true })).toEqual([
      expect.stringMatching(/^actions \(line 2\): not allowed in a direct-mode build/),
    ]);
  });
});

describe('ACTIONS_SECRET, IDENTITY_SECRET and IDENTITY_PUBLIC_KEY', () => {
  const read = (env: Record<string, string>) => {
    const found: string[] = [];
    return { config: readActionsEnv(env, found), problems: found };
  };

  it('takes long enough secrets and an RSA or P-256 public key, a .env line with \\n included', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' });
    const oneLine = String(ec).trim().replace(/\n/g, '\\n');
    expect(
      read({ ACTIONS_SECRET: 'a'.repeat(24), IDENTITY_SECRET: 'b'.repeat(32), IDENTITY_PUBLIC_KEY: String(rsa) }),
    ).toEqual({
      config: { secret: 'a'.repeat(24), identitySecret: 'b'.repeat(32), identityPublicKey: String(rsa).trim() },
      problems: [],
    });
    expect(read({ IDENTITY_PUBLIC_KEY: oneLine }).config.identityPublicKey).toBe(String(ec).trim());
  });

  it('refuses short secrets and anything but an RSA or P-256 public key, never repeating the value', () => {
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'pem' });
    for (const key of [String(ed), String(p384), 'not a key']) {
      expect(read({ IDENTITY_PUBLIC_KEY: key }).problems).toEqual([
        'IDENTITY_PUBLIC_KEY must be a PEM public key (-----BEGIN PUBLIC KEY-----), RSA (RS256) or P-256 (ES256)',
      ]);
    }
    const found = read({ ACTIONS_SECRET: 'short-secret', IDENTITY_SECRET: 'x'.repeat(31) });
    expect(found.config).toEqual({});
    expect(found.problems).toEqual([
      'ACTIONS_SECRET must be at least 24 characters with no spaces (openssl rand -hex 24)',
      'IDENTITY_SECRET must be at least 32 characters with no spaces (openssl rand -hex 32)',
    ]);
  });
});
