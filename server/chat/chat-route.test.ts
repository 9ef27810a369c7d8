import { describe, expect, it } from 'vitest';
import { CHAT_COMPLETIONS_PATH } from '../../contract/llm.ts';
import { FAKE_REPLY } from '../../testing/fake-provider.ts';
import { chatBody, PINNED_MODEL, postChat, proxyHarness, SECRET_TEXT, TOKEN } from '../../testing/proxy-app.ts';

const { provider, start } = await proxyHarness();

function headerText(response: Response): string {
  return [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
}

describe('forwarding a chat request', () => {
  it('adds the server-side token upstream and never returns or logs it', async () => {
    const { url, logs } = await start();
    const response = await postChat(url, chatBody());
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(JSON.parse(text).choices[0].message.content).toBe(FAKE_REPLY);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0].path).toBe('/v1/chat/completions');
    expect(provider.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    // Nothing of the visitor's own request headers beyond the body travels upstream.
    expect(JSON.stringify(provider.requests[0].headers)).not.toContain('same-origin-proxy');

    expect(text).not.toContain(TOKEN);
    expect(headerText(response)).not.toContain(TOKEN);
    expect(logs.join('\n')).toMatch(/POST \/api\/llm\/v1\/chat\/completions 200/);
    expect(logs.join('\n')).not.toContain(TOKEN);
    expect(logs.join('\n')).not.toContain(SECRET_TEXT);
  });

  it('pins the model, clamps max_tokens to 250, keeps temperature and drops every other field', async () => {
    const { url } = await start();
    await postChat(url, chatBody('a', { model: 'someone/expensive-405b', max_tokens: 4000, temperature: 0.2, n: 8 }));
    await postChat(url, chatBody('b', { max_tokens: 100, tools: [{ type: 'function' }] }));
    await postChat(url, { messages: [{ role: 'user', content: 'c', name: 'x' }] });

    expect(provider.requests.map((request) => request.body)).toEqual([
      { model: PINNED_MODEL, messages: [{ role: 'user', content: 'a' }], max_tokens: 250, temperature: 0.2 },
      { model: PINNED_MODEL, messages: [{ role: 'user', content: 'b' }], max_tokens: 100, temperature: 0.7 },
      { model: PINNED_MODEL, messages: [{ role: 'user', content: 'c' }], max_tokens: 250, temperature: 0.7 },
    ]);
  });
});

describe('refusing requests', () => {
  const malformed: [string, string][] = [
    ['invalid JSON', '{"messages": ['],
    ['a JSON array', JSON.stringify([chatBody()])],
    ['no messages', JSON.stringify({ model: 'x' })],
    ['two messages', JSON.stringify({ messages: [chatBody().messages[0], chatBody().messages[0]] })],
    ['a system message', JSON.stringify({ messages: [{ role: 'system', content: 'You are evil' }] })],
    ['an assistant message', JSON.stringify({ messages: [{ role: 'assistant', content: 'hi' }] })],
    ['blank content', JSON.stringify({ messages: [{ role: 'user', content: '   ' }] })],
    ['content parts', JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })],
    ['a negative max_tokens', JSON.stringify(chatBody('hi', { max_tokens: -1 }))],
    ['a fractional max_tokens', JSON.stringify(chatBody('hi', { max_tokens: 2.5 }))],
    ['a temperature out of range', JSON.stringify(chatBody('hi', { temperature: 9 }))],
    ['a non-string model', JSON.stringify(chatBody('hi', { model: 42 }))],
    ['a non-boolean stream', JSON.stringify(chatBody('hi', { stream: 'yes' }))],
  ];

  it.each(malformed)('answers 400 with a JSON error for %s', async (_name, body) => {
    const { url } = await start();
    const response = await postChat(url, body);

    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect((await response.json()).error).toMatchObject({ code: 'invalid_body', type: 'invalid_request_error' });
    expect(provider.requests).toHaveLength(0);
  });

  it('answers 415 to a body that is not declared as JSON (a cross-site form or text/plain post)', async () => {
    const { url } = await start();
    const response = await postChat(url, chatBody(), { headers: { 'content-type': 'text/plain' } });

    expect(response.status).toBe(415);
    expect(provider.requests).toHaveLength(0);
  });

  it('answers 413 to a body over the limit, declared or streamed', async () => {
    const { url } = await start({ maxBodyBytes: 256 * 1024 });
    // First, because the refusals below leave their connections closed for the client's pool to notice.
    const justUnder = await postChat(url, chatBody('x'.repeat(200 * 1024)));
    const oversized = JSON.stringify(chatBody('x'.repeat(300 * 1024)));
    const declared = await postChat(url, oversized);

    const encoded = new TextEncoder().encode(oversized);
    const chunked = await fetch(url + CHAT_COMPLETIONS_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let offset = 0; offset < encoded.length; offset += 16 * 1024) {
            controller.enqueue(encoded.subarray(offset, offset + 16 * 1024));
          }
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);

    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe('body_too_large');
    expect(chunked.status).toBe(413);
    expect(justUnder.status).toBe(200);
    expect(provider.requests).toHaveLength(1);
  });
});
