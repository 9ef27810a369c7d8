// @vitest-environment node
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS_CONFIRM_PATH, type ReplyActions } from '../../contract/actions';
import type { ConfirmRefusal, FetchReplyInput } from '../../machines/chat-machine';
import { replyInput } from '../../testing/controllable-reply';
import { readLlmConfig } from './llm-config';
import { requestReply } from './request-reply';

// What the page's requests carry for the site's actions (issue 49), read by a recording server on 127.0.0.1 in front
// of the real openai client: the chat's id, the host page's visitor token, the Confirm's token and address, and the
// server's answers about actions. The proxy's own handling of them has its tests in server/chat.

interface Seen {
  path: string;
  body: Record<string, unknown>;
}
const seen: Seen[] = [];
/** What the server answers next, by the request's path: a status and a JSON body. */
let answer: (path: string) => { status: number; body: unknown } = () => ({ status: 200, body: completion('Hi') });

function completion(content: string, actions?: ReplyActions) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    ...(actions ? { actions } : {}),
  };
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const path = req.url ?? '';
    seen.push({ path, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    const { status, body } = answer(path);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
});
let origin = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  seen.length = 0;
  answer = () => ({ status: 200, body: completion('Hi') });
});

const env = { BASE_URL: '/', MODE: 'test', DEV: false, PROD: true, SSR: false, VITE_LLM_STREAM: 'false' };
const proxy = () => readLlmConfig(env, origin);
const direct = () =>
  readLlmConfig({ ...env, VITE_LLM_API_KEY: 'test-key-not-real', VITE_LLM_BASE_URL: `${origin}/v1` }, origin);

/** A chat (the invoking machine) whose requests share its id. */
function chat() {
  const actions: ReplyActions[] = [];
  const parent = {
    send: (event: { type: string; actions?: ReplyActions }) => event.actions && actions.push(event.actions),
  };
  const ask = (text: string, extra: Pick<FetchReplyInput, 'confirm' | 'hostPage'> = {}, config = proxy()) =>
    requestReply({ ...replyInput(text, extra), parent }, new AbortController().signal, config);
  return { ask, actions };
}

const CONFIRMATION = {
  action: 'request_callback',
  text: 'Ask the shop to call +44 1234 567890 in the morning?',
  token: 'confirmation-token-not-real',
  conversation: '0123456789abcdef0123456789abcdef',
  expires: 1_900_000_000_000,
};

describe('what the page sends and reads for the site’s actions', () => {
  it('gives each chat one random id, the same on every request of that chat', async () => {
    const one = chat();
    const other = chat();
    await one.ask('Hello');
    await one.ask('Again');
    await other.ask('Hello');
    const ids = seen.map(({ body }) => body.conversation);
    expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).toMatch(/^[0-9a-f]{32}$/);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('sends the host page’s visitor token as identity, and only to the page’s own server', async () => {
    const hostPage = { identity: 'header.payload.signature' };
    await chat().ask('Where is my order?', { hostPage });
    expect(seen[0].body.identity).toBe('header.payload.signature');

    await chat().ask('Where is my order?', { hostPage }, direct());
    expect(seen[1].body).not.toHaveProperty('identity');
    expect(seen[1].body).not.toHaveProperty('conversation');
  });

  it('reads the notes and the confirmation beside a whole reply, and takes nothing malformed', async () => {
    const note = { action: 'order_status', text: 'Order 123456: shipped', inputs: { order_number: '123456' } };
    answer = () => ({
      status: 200,
      body: completion('Please confirm.', {
        notes: [note, { action: 'x', text: 7, inputs: {} } as never],
        confirmation: CONFIRMATION,
      }),
    });
    const { ask, actions } = chat();
    expect(await ask('Call me back')).toBe('Please confirm.');
    expect(actions).toEqual([{ notes: [note], confirmation: CONFIRMATION }]);
  });

  it('sends a Confirm to the actions’ address with its token, and says why the server refused one', async () => {
    const { ask } = chat();
    await ask('Call me back', { confirm: CONFIRMATION.token });
    expect(seen[0].path).toBe(ACTIONS_CONFIRM_PATH);
    expect(seen[0].body).toMatchObject({ confirmation: CONFIRMATION.token, messages: [{ content: 'Call me back' }] });

    const refusedWith = async (status: number, code: string) => {
      answer = () => ({ status, body: { error: { code, message: 'refused' } } });
      return ask('Call me back', { confirm: CONFIRMATION.token }).then(
        () => undefined,
        (error: Error & Partial<ConfirmRefusal>) => error,
      );
    };
    expect((await refusedWith(400, 'expired_token'))?.confirmRefused).toBe('expired');
    expect((await refusedWith(502, 'action_failed'))?.confirmRefused).toBe('failed');
    // A forged or replayed token is no refusal the visitor can act on: the spec's error.
    const replayed = await refusedWith(400, 'replayed_token');
    expect(replayed).toBeInstanceOf(Error);
    expect(replayed?.confirmRefused).toBeUndefined();
    // Only a Confirm's refusal says so: a chat request refused with the same code is an ordinary failure.
    answer = () => ({ status: 400, body: { error: { code: 'expired_token', message: 'refused' } } });
    const plain = await ask('Hello').then(
      () => undefined,
      (error: Error & Partial<ConfirmRefusal>) => error,
    );
    expect(plain?.confirmRefused).toBeUndefined();
  });
});
