import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACTIONS_CONFIRM_PATH, ACTIONS_OBJECT } from '../../contract/actions.ts';
import { PROXY_BASE_PATH } from '../../contract/llm.ts';
import { type ActionParts, FEEDBACK_SECRET, startActionParts, visitorToken } from '../../testing/action-parts.ts';
import { type OwnerApi, startOwnerApi } from '../../testing/owner-api.ts';
import { chatBody, postChat, providerOn, proxyHarness } from '../../testing/proxy-app.ts';
import { type Action, confirmTokens } from '../actions/actions.ts';
import type { ServerParts } from '../server-parts.ts';

const { provider, start } = await proxyHarness();

// The confirmation tokens' key is drawn from the site's secret, as the server draws it.
const tokens = confirmTokens(FEEDBACK_SECRET);
const PHONE = '+44 1234 5678';

let api: OwnerApi;
let started: ActionParts;
let parts: ServerParts;
beforeAll(async () => {
  api = await startOwnerApi({
    callbacks: (_, res) => res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"reference":"CB-7"}'),
    broken: (_, res) => res.writeHead(500).end(),
  });
  const callback: Action = {
    name: 'request_callback',
    description: 'Ask the shop to call the visitor back',
    method: 'POST',
    url: `${api.url}/callbacks`,
    input: { phone: { type: 'string' } },
    confirm: 'Ask the shop to call {phone}?',
    show: 'Call-back {reference} booked for {phone}',
    perVisitorPerDay: 2,
  };
  const actions: Action[] = [
    callback,
    { ...callback, name: 'cancel_order', identity: 'required', perVisitorPerDay: undefined },
    { ...callback, name: 'broken', url: `${api.url}/broken/x` },
    { ...callback, name: 'lookup', confirm: undefined },
    { ...callback, name: 'plain_callback', show: undefined, perVisitorPerDay: undefined },
  ];
  started = await startActionParts(provider, actions);
  parts = started.parts;
});
afterAll(async () => {
  await started.close();
  await api.close();
});
beforeEach(() => {
  api.calls.length = 0;
});

const app = (dailyTokenLimit?: number) =>
  start({ actions: parts.actions, feedback: parts.feedback, ...(dailyTokenLimit ? { dailyTokenLimit } : {}) });
const proposal = (action = 'request_callback', extra: { sub?: string } = {}, now = Date.now()) =>
  tokens.issue({ action, inputs: { phone: PHONE }, conversation: 'c-1', ...extra }, now);
/** The page's Confirm: its chat request (the message that led to the proposal) with the token and conversation. */
const confirmBody = (confirmation: string, extra: Record<string, unknown> = {}) =>
  chatBody('Please call me back', { confirmation, conversation: 'c-1', ...extra });
const post = (url: string, body: unknown) =>
  fetch(url + ACTIONS_CONFIRM_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
/** The page's own client, sending its Confirm to the confirm path as the card does. */
const client = (url: string) => new OpenAI({ baseURL: url + PROXY_BASE_PATH, apiKey: 'same-origin-proxy' });
type Messages = { role: string; content: unknown; tool_calls?: { function: { name: string; arguments: string } }[] }[];
const sentMessages = (n: number) => (provider.requests[n].body as { messages: Messages }).messages;
const actionCounts = async () => (await parts.feedback?.stats(1))?.totals.actions ?? {};

describe('a Confirm', () => {
  it('performs the action once, and the model tells its result in a stream, the note first', async () => {
    const { url } = await app();
    provider.queue({ content: 'The shop will call you; your reference is CB-7.' });
    const token = proposal();
    const body = { ...confirmBody(token), stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
    const stream = await client(url).chat.completions.create(body, { path: url + ACTIONS_CONFIRM_PATH });
    const events: Record<string, unknown>[] = [];
    for await (const event of stream) events.push(event as unknown as Record<string, unknown>);

    // The proxy's own events (the reply's vote token, then the action's note) before the reply's first piece.
    const noted = events.findIndex((event) => event.object === ACTIONS_OBJECT);
    expect(events[noted]).toEqual({
      object: ACTIONS_OBJECT,
      notes: [{ action: 'request_callback', text: `Call-back CB-7 booked for ${PHONE}`, inputs: { phone: PHONE } }],
    });
    expect(noted).toBeLessThan(events.findIndex((event) => event.object === 'chat.completion.chunk'));
    const text = events.map((event) => (event as { choices?: { delta: { content?: string } }[] }).choices?.[0]);
    expect(text.map((choice) => choice?.delta.content ?? '').join('')).toBe(
      'The shop will call you; your reference is CB-7.',
    );
    expect(api.calls.map((call) => [call.method, call.url, call.body])).toEqual([
      ['POST', '/callbacks', JSON.stringify({ phone: PHONE })],
    ]);
    // Asked once, without tools: the conversation, the action's call with its checked inputs, and its result as data.
    expect(provider.requests).toHaveLength(1);
    expect((provider.requests[0].body as { tools?: unknown }).tools).toBeUndefined();
    const [asked, call, result] = sentMessages(0).slice(-3);
    expect(asked).toEqual({ role: 'user', content: 'Please call me back' });
    expect(call.tool_calls?.[0].function).toEqual({
      name: 'request_callback',
      arguments: JSON.stringify({ phone: PHONE }),
    });
    expect(result).toMatchObject({ role: 'tool', content: '{"result":{"reference":"CB-7"}}' });

    const again = await post(url, confirmBody(token));
    expect(again.status).toBe(400);
    expect((await again.json()).error.code).toBe('replayed_token');
    expect(api.calls).toHaveLength(1);
  });

  it('answers a whole completion with the note beside its choices when no stream is asked', async () => {
    const before = (await actionCounts()).request_callback?.confirmed ?? 0;
    const coverage = async () => {
      const totals = (await parts.feedback?.stats(1))?.totals;
      return [totals?.messages, totals?.with_sources, totals?.without_sources];
    };
    const covered = await coverage();
    const { url, logs } = await app();
    provider.queue({ content: 'Booked: CB-7.' });
    const reply = await client(url).chat.completions.create(confirmBody(proposal()) as never, {
      path: url + ACTIONS_CONFIRM_PATH,
    });

    expect(reply.choices[0].message.content).toBe('Booked: CB-7.');
    expect((reply as unknown as { actions: unknown }).actions).toEqual({
      notes: [{ action: 'request_callback', text: `Call-back CB-7 booked for ${PHONE}`, inputs: { phone: PHONE } }],
    });
    expect(api.calls).toHaveLength(1);
    expect((await actionCounts()).request_callback.confirmed).toBe(before + 1);
    // A reply about an action done is no visitor message, nor an answer with or without the site's pages.
    expect(await coverage()).toEqual(covered);
    // The log names the action, never the inputs or the result.
    expect(logs.join('\n')).not.toMatch(/1234|CB-7/);
  });

  it("is told by the action's show template when the model fails, in either format", async () => {
    const { url } = await app();
    provider.queue({ status: 500 }, { status: 503 }, { status: 500 });
    const whole = await client(url).chat.completions.create(confirmBody(proposal()) as never, {
      path: url + ACTIONS_CONFIRM_PATH,
      maxRetries: 0,
    });
    expect(whole.choices[0].message.content).toBe(`Call-back CB-7 booked for ${PHONE}`);

    const response = await post(url, confirmBody(proposal('plain_callback'), { stream: true }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = await response.text();
    const events = stream
      .split('\n\n')
      .flatMap((event) => (event.startsWith('data: {') ? [JSON.parse(event.slice(6))] : []));
    expect(events[0]).toMatchObject({ object: ACTIONS_OBJECT, notes: [{ action: 'plain_callback' }] });
    expect(events.map((event) => event.choices?.[0]?.delta?.content ?? '').join('')).toBe(
      'The action plain_callback was done.',
    );
    expect(stream).toContain('data: [DONE]');
    expect(api.calls).toHaveLength(2);
  });

  it('is told by the show template when the model stops before its first piece, in either format', async () => {
    // A provider that answers its headers, then nothing: the reply's deadline passes before any piece.
    const stalling: Server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const { stream } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      res.flushHeaders();
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = stalling.address() as AddressInfo;
      const { url } = await start({
        upstream: providerOn(port),
        timeoutMs: 300,
        actions: parts.actions,
        feedback: parts.feedback,
      });
      for (const stream of [true, false]) {
        const response = await post(url, confirmBody(proposal('plain_callback'), { stream }));
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text, String(stream)).toContain('The action plain_callback was done.');
        expect(text).not.toContain('broke off');
      }
      expect(api.calls).toHaveLength(2);
    } finally {
      stalling.closeAllConnections();
      await new Promise((resolve) => stalling.close(resolve));
    }
  });

  it('performs the confirmed action and tells it with the show template when the spend cap refuses the model', async () => {
    // A daily cap below what the reply's request reserves (its prompt and max_tokens).
    const { url } = await app(100);
    const response = await post(url, confirmBody(proposal()));

    // The visitor confirmed and the call costs no tokens: it is made, and only the model's words are refused.
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`Call-back CB-7 booked for ${PHONE}`);
    expect(api.calls).toHaveLength(1);
    expect(provider.requests).toEqual([]);
  });
});

describe('a Cancel', () => {
  it('uses the token up, calls nothing, and is counted', async () => {
    const before = (await actionCounts()).request_callback?.cancelled ?? 0;
    const { url } = await app();
    const token = proposal();
    const cancelled = await post(url, { cancel: true, confirmation: token, conversation: 'c-1' });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ cancelled: true });

    const confirmed = await post(url, confirmBody(token));
    expect(confirmed.status).toBe(400);
    expect((await confirmed.json()).error.code).toBe('replayed_token');
    expect(api.calls).toEqual([]);
    expect(provider.requests).toEqual([]);
    expect((await actionCounts()).request_callback.cancelled).toBe(before + 1);
    const other = await post(url, { cancel: true, confirmation: proposal(), conversation: 'c-2' });
    expect((await other.json()).error.code).toBe('other_conversation');
  });
});

describe('a confirmation refused', () => {
  it('refuses a forged, altered, expired or other conversation token, and what is no confirmation, calling nothing', async () => {
    const { url, logs } = await app();
    const token = proposal();
    const [payload, signature] = token.split('.');
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const changed = Buffer.from(JSON.stringify({ ...data, inputs: { phone: '+1 900' } })).toString('base64url');
    const cases: [unknown, string][] = [
      [confirmBody(confirmTokens('another-secret-0123456789abcd').issue(data)), 'invalid_token'],
      [confirmBody(`${changed}.${signature}`), 'invalid_token'],
      [confirmBody(proposal('request_callback', {}, Date.now() - 6 * 60_000)), 'expired_token'],
      [confirmBody(token, { conversation: 'c-2' }), 'other_conversation'],
      // A read is called by the chat at once, never by a confirmation, whatever a token names.
      [confirmBody(proposal('lookup')), 'invalid_token'],
      [confirmBody(proposal('no_such_action')), 'invalid_token'],
      [chatBody('Please call me back', { conversation: 'c-1' }), 'invalid_body'],
      [{ confirmation: token, conversation: 'c-1' }, 'invalid_body'],
      [[token], 'invalid_body'],
    ];
    for (const [body, code] of cases) {
      const response = await post(url, body);
      expect(response.status, code).toBe(400);
      expect(await response.json(), code).toMatchObject({ error: { code } });
    }
    expect(api.calls).toEqual([]);
    expect(provider.requests).toEqual([]);
    expect(logs.filter((line) => line.includes('refused'))).toHaveLength(cases.length);
    const text = await fetch(url + ACTIONS_CONFIRM_PATH, { method: 'POST', body: 'token' });
    expect(text.status).toBe(415);
  });

  it("has the chat's rate limit: past it, a Confirm is refused before its token is looked at", async () => {
    const { url } = await start({ actions: parts.actions, feedback: parts.feedback, rateLimitPerMinute: 1 });
    expect((await post(url, confirmBody('not-a-token'))).status).toBe(400);
    const limited = await post(url, confirmBody(proposal()));
    expect(limited.status).toBe(429);
    expect((await limited.json()).error.code).toBe('rate_limited');
    expect(api.calls).toEqual([]);
  });

  it('takes per_visitor_per_day calls a day, and a replayed token does not use one up', async () => {
    const { url } = await app();
    const first = proposal();
    expect((await post(url, confirmBody(first))).status).toBe(200);
    expect((await post(url, confirmBody(first))).status).toBe(400);
    expect((await post(url, confirmBody(proposal()))).status).toBe(200);
    const third = await post(url, confirmBody(proposal()));
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await third.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect(api.calls).toHaveLength(2);
  });

  it("needs the host page's token of the visitor who was asked for an action with identity, and sends it", async () => {
    const { url } = await app();
    const token = proposal('cancel_order', { sub: 'customer-42' });
    for (const identity of [undefined, 'not.a.token', await visitorToken('customer-7')]) {
      const response = await post(url, confirmBody(token, identity ? { identity } : {}));
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'identity_required' } });
    }
    expect(api.calls).toEqual([]);
    const identity = await visitorToken('customer-42');
    expect((await post(url, confirmBody(token, { identity }))).status).toBe(200);
    expect(api.calls.at(-1)?.headers.authorization).toBe(`Bearer ${identity}`);
    // The visitor token is the owner's API's, never the model's.
    expect(JSON.stringify(provider.requests.map((request) => request.body))).not.toContain(identity);
  });

  it('says an action that failed, in one code and its reason, counts it, and asks no model', async () => {
    const before = (await actionCounts()).broken?.failed ?? 0;
    const { url } = await app();
    const response = await post(url, confirmBody(proposal('broken')));
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      error: { code: 'action_failed', message: 'The action could not be done.', reason: 'http_error' },
    });
    expect((await actionCounts()).broken.failed).toBe(before + 1);
    expect(provider.requests).toEqual([]);
  });
});

describe('a proposal from the chat', () => {
  it('is confirmed with the token and conversation the chat gave', async () => {
    const { url } = await app();
    provider.queue(
      { toolCall: { name: 'request_callback', arguments: JSON.stringify({ phone: PHONE }) } },
      { content: 'Please confirm.' },
      { content: 'Done.' },
    );
    const proposed = await (await postChat(url, chatBody('Call me', { conversation: 'conversation-9' }))).json();
    const { token, conversation } = proposed.actions.confirmation;
    expect(api.calls).toEqual([]);
    const reply = await (await post(url, chatBody('Call me', { confirmation: token, conversation }))).json();
    expect(reply.choices[0].message.content).toBe('Done.');
    expect(api.calls).toHaveLength(1);
  });
});
