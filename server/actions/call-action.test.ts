import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnerApi, startOwnerApi } from '../../testing/owner-api.ts';
import type { Action } from './action-types.ts';
import { callAction, fillUrl } from './call-action.ts';

const SECRET = 'test-actions-secret-0123456789';
let api: OwnerApi;

beforeAll(async () => {
  api = await startOwnerApi({
    orders: (call, res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ status: 'shipped', seen: call.url })),
    moved: (_, res) => res.writeHead(302, { Location: '/orders/1' }).end(),
    big: (_, res) => {
      // No Content-Length: the cap must stop the reading itself, not trust a header.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`{"pad":"${'x'.repeat(40_000)}`);
      res.end(`${'y'.repeat(40_000)}"}`);
    },
    text: (_, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>Hello</p>'),
    // Answers nothing: only the call's own limit ends it.
    slow: () => {},
    'slow-body': (_, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"status":'),
    fail: (_, res) => res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"down"}'),
  });
});
afterAll(() => api.close());

const action = (over: Partial<Action> = {}): Action => ({
  name: 'order_status',
  description: 'Look up an order',
  method: 'GET',
  url: `${api.url}/orders/{order_number}`,
  input: { order_number: { type: 'string' } },
  ...over,
});
const lastCall = () => api.calls.at(-1);

describe('calling an action', () => {
  it('GETs the filled address with its name and a signature the owner can check, and gives the JSON', async () => {
    const result = await callAction(action(), { order_number: '123456' }, { secret: SECRET });
    expect(result).toEqual({ ok: true, result: { status: 'shipped', seen: '/orders/123456' } });
    const call = lastCall();
    expect(call?.method).toBe('GET');
    expect(call?.body).toBe('');
    expect(call?.headers['x-assistant-action']).toBe('order_status');
    expect(call?.headers.authorization).toBeUndefined();
    // What the owner's side does: the method, the full address as received and the raw body, under the shared secret.
    const expected = createHmac('sha256', SECRET).update(`GET\n${api.url}${call?.url}\n`).digest('hex');
    expect(call?.headers['x-assistant-signature']).toBe(`sha256=${expected}`);
  });

  it('POSTs the inputs as JSON, signed over the body, with the visitor token when the action needs identity', async () => {
    const post = action({
      name: 'request_callback',
      method: 'POST',
      url: `${api.url}/callbacks`,
      input: { phone: { type: 'string' }, adults: { type: 'integer' } },
      identity: 'required',
    });
    const inputs = { phone: '+44 1234', adults: 2 };
    expect(await callAction(post, inputs, { secret: SECRET, visitorToken: 'fake.visitor.token' })).toEqual({
      ok: true,
      result: { ok: true },
    });
    const call = lastCall();
    expect(call?.method).toBe('POST');
    expect(JSON.parse(call?.body ?? '')).toEqual(inputs);
    expect(call?.headers['content-type']).toBe('application/json');
    expect(call?.headers.authorization).toBe('Bearer fake.visitor.token');
    const expected = createHmac('sha256', SECRET).update(`POST\n${api.url}/callbacks\n${call?.body}`).digest('hex');
    expect(call?.headers['x-assistant-signature']).toBe(`sha256=${expected}`);
    // No token, no call: the owner's API would not know whose data it is.
    const before = api.calls.length;
    expect(await callAction(post, inputs)).toEqual({ ok: false, reason: 'no_identity' });
    expect(api.calls).toHaveLength(before);
  });

  it('sends no signature without ACTIONS_SECRET', async () => {
    await callAction(action(), { order_number: '1' });
    expect(lastCall()?.headers['x-assistant-signature']).toBeUndefined();
  });

  it('keeps a hostile value inside its one path segment', async () => {
    const hostile = '../../admin?all=1#x/y';
    const result = await callAction(action(), { order_number: hostile });
    expect(result.ok).toBe(true);
    expect(lastCall()?.url).toBe('/orders/..%2F..%2Fadmin%3Fall%3D1%23x%2Fy');
    expect(decodeURIComponent(lastCall()?.url.slice('/orders/'.length) ?? '')).toBe(hostile);
    // A value that URL parsing would take as the folder or its parent is refused before any call.
    const before = api.calls.length;
    for (const value of ['..', '.', '']) {
      expect(await callAction(action(), { order_number: value })).toEqual({ ok: false, reason: 'invalid_input' });
    }
    expect(api.calls).toHaveLength(before);
    expect(fillUrl(action({ url: 'https://shop.example/a/{n}?q={n}' }), { n: 'a b&c=d' })).toBe(
      'https://shop.example/a/a%20b%26c%3Dd?q=a%20b%26c%3Dd',
    );
  });

  it.each([
    ['a redirect, not followed', 'moved', { ok: false, reason: 'redirect', status: 302 }],
    ['an answer over the size limit', 'big', { ok: false, reason: 'too_large' }],
    ['an answer that is not JSON', 'text', { ok: false, reason: 'not_json' }],
    ['a server error', 'fail', { ok: false, reason: 'http_error', status: 500 }],
  ])('fails on %s', async (_, path, expected) => {
    const before = api.calls.length;
    const result = await callAction(action({ url: `${api.url}/${path}/{order_number}` }), { order_number: '1' });
    expect(result).toEqual(expected);
    // Exactly one call: the redirect's target was never asked.
    expect(api.calls).toHaveLength(before + 1);
  });

  it('fails on an answer larger than a smaller configured limit, and takes one within it', async () => {
    const small = { maxBytes: 20 };
    expect(await callAction(action(), { order_number: '1' }, small)).toEqual({ ok: false, reason: 'too_large' });
    expect(await callAction(action(), { order_number: '1' }, { maxBytes: 100 })).toMatchObject({ ok: true });
  });

  it('gives up at its time limit, before the answer or in the middle of it', async () => {
    for (const path of ['slow', 'slow-body']) {
      const started = Date.now();
      const result = await callAction(
        action({ url: `${api.url}/${path}/{order_number}` }),
        { order_number: '1' },
        { timeoutMs: 150 },
      );
      expect(result).toEqual({ ok: false, reason: 'timeout' });
      expect(Date.now() - started).toBeLessThan(4_000);
    }
  });

  it('fails as unreachable when nothing listens', async () => {
    const closed = await startOwnerApi();
    await closed.close();
    const result = await callAction(action({ url: `${closed.url}/orders/{order_number}` }), { order_number: '1' });
    expect(result).toEqual({ ok: false, reason: 'unreachable' });
  });
});
