import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACTIONS_CONFIRM_PATH } from '../../contract/actions.ts';
import { type OwnerApi, startOwnerApi } from '../../testing/owner-api.ts';
import { MemoryCounters } from '../limits/limits.ts';
import type { Action } from './action-types.ts';
import { type ConfirmCount, confirmRoute } from './confirm-route.ts';
import { confirmTokens } from './confirm-token.ts';
import { visitorIdentity } from './visitor-identity.ts';

const SECRET = 'test-actions-secret-0123456789';
const IDENTITY_SECRET = 'test-identity-secret-0123456789abcdef';
const tokens = confirmTokens(SECRET);
let api: OwnerApi;
beforeAll(async () => {
  api = await startOwnerApi({
    callbacks: (_, res) => res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"reference":"CB-7"}'),
    broken: (_, res) => res.writeHead(500).end(),
  });
});
afterAll(() => api.close());

const callback = (): Action => ({
  name: 'request_callback',
  description: 'Ask the shop to call the visitor back',
  method: 'POST',
  url: `${api.url}/callbacks`,
  input: { phone: { type: 'string' } },
  confirm: 'Ask the shop to call {phone}?',
  perVisitorPerDay: 2,
});
const cancelOrder = (): Action => ({
  ...callback(),
  name: 'cancel_order',
  identity: 'required',
  perVisitorPerDay: undefined,
});
const broken = (): Action => ({ ...callback(), name: 'broken', url: `${api.url}/broken/x` });
const lookup = (): Action => ({ ...callback(), name: 'lookup', confirm: undefined });

let counted: [string | undefined, ConfirmCount][];
let lines: string[];
let app: ReturnType<typeof confirmRoute>;
beforeEach(() => {
  counted = [];
  lines = [];
  app = confirmRoute(
    { rateLimitPerMinute: 0, trustProxyHops: 0 },
    {
      actions: [callback(), cancelOrder(), broken(), lookup()],
      tokens: async () => tokens,
      identity: visitorIdentity({ secret: IDENTITY_SECRET }),
      counters: new MemoryCounters(),
      call: { secret: SECRET, timeoutMs: 2_000 },
      count: (action, event) => counted.push([action, event]),
      log: (line) => lines.push(line),
    },
  );
});

const confirm = (body: unknown) =>
  app.request(ACTIONS_CONFIRM_PATH, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const proposal = (action = 'request_callback', extra: { sub?: string } = {}, now = Date.now()) =>
  tokens.issue({ action, inputs: { phone: '+44 1234 5678' }, conversation: 'c-1', ...extra }, now);
const visitorToken = (sub: string) =>
  new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(IDENTITY_SECRET));

describe('POST /api/actions/confirm', () => {
  it("calls the action once with the token's inputs and gives its result; the same token again is refused", async () => {
    const before = api.calls.length;
    const token = proposal();
    const first = await confirm({ token, conversation: 'c-1' });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ action: 'request_callback', result: { reference: 'CB-7' } });
    expect(api.calls).toHaveLength(before + 1);
    expect(JSON.parse(api.calls.at(-1)?.body ?? '')).toEqual({ phone: '+44 1234 5678' });
    expect(api.calls.at(-1)?.headers['x-assistant-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    const again = await confirm({ token, conversation: 'c-1' });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: { code: 'replayed_token' } });
    expect(api.calls).toHaveLength(before + 1);
    expect(counted).toEqual([
      ['request_callback', 'confirmed'],
      ['request_callback', 'refused'],
    ]);
    // The log names the action and the code, never the inputs or the result.
    expect(lines.join('\n')).not.toMatch(/1234|CB-7/);
  });

  it('refuses a forged, altered, expired or other conversation token, and what is no confirmation, calling nothing', async () => {
    const before = api.calls.length;
    const token = proposal();
    const [payload, signature] = token.split('.');
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const changed = Buffer.from(JSON.stringify({ ...data, inputs: { phone: '+1 900' } })).toString('base64url');
    const cases: [unknown, string][] = [
      [{ token: confirmTokens('another-secret-0123456789abcd').issue(data), conversation: 'c-1' }, 'invalid_token'],
      [{ token: `${changed}.${signature}`, conversation: 'c-1' }, 'invalid_token'],
      [{ token: proposal('request_callback', {}, Date.now() - 6 * 60_000), conversation: 'c-1' }, 'expired_token'],
      [{ token, conversation: 'c-2' }, 'other_conversation'],
      // A read is called by the chat at once, never by a confirmation, whatever a token names.
      [{ token: proposal('lookup'), conversation: 'c-1' }, 'invalid_token'],
      [{ token: proposal('no_such_action'), conversation: 'c-1' }, 'invalid_token'],
      [{ token }, 'invalid_body'],
      [[token], 'invalid_body'],
    ];
    for (const [body, code] of cases) {
      const response = await confirm(body);
      expect(response.status, code).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code } });
    }
    expect(api.calls).toHaveLength(before);
    expect(counted).toHaveLength(cases.length);
    expect(counted.every(([, event]) => event === 'refused')).toBe(true);
    const text = await app.request(ACTIONS_CONFIRM_PATH, { method: 'POST', body: 'token' });
    expect(text.status).toBe(415);
  });

  it('takes per_visitor_per_day calls a day, and a replayed token does not use one up', async () => {
    const before = api.calls.length;
    const first = proposal();
    expect((await confirm({ token: first, conversation: 'c-1' })).status).toBe(200);
    expect((await confirm({ token: first, conversation: 'c-1' })).status).toBe(400);
    expect((await confirm({ token: proposal(), conversation: 'c-1' })).status).toBe(200);
    const third = await confirm({ token: proposal(), conversation: 'c-1' });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await third.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect(api.calls).toHaveLength(before + 2);
  });

  it("needs the host page's token of the visitor who was asked for an action with identity, and sends it", async () => {
    const before = api.calls.length;
    const token = proposal('cancel_order', { sub: 'customer-42' });
    const refused = [undefined, 'not.a.token', await visitorToken('customer-7')];
    for (const identity of refused) {
      const response = await confirm({ token, conversation: 'c-1', ...(identity ? { identity } : {}) });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'identity_required' } });
    }
    expect(api.calls).toHaveLength(before);
    const identity = await visitorToken('customer-42');
    expect((await confirm({ token, conversation: 'c-1', identity })).status).toBe(200);
    expect(api.calls.at(-1)?.headers.authorization).toBe(`Bearer ${identity}`);
  });

  it('says an action that failed, in one code and its reason, and counts it', async () => {
    const response = await confirm({ token: proposal('broken'), conversation: 'c-1' });
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      error: { code: 'action_failed', message: 'The action could not be done.', reason: 'http_error' },
    });
    expect(counted).toEqual([['broken', 'failed']]);
  });
});
