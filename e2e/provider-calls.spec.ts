import { FAKE_REPLY } from '../testing/fake-provider';
import { DIRECT_PROVIDER_BASE_URL, PROXY_PLACEHOLDER_KEY, UPSTREAM_API_KEY } from './e2e-env';
import { expect, expectedPayload, providerToken, test } from './fixtures';

test('sends only the latest message, with the spec payload and the token, and shows each reply', async ({
  chat,
  fake,
  mode,
}) => {
  await chat.sendWithEnter('What is XState?');
  await chat.expectTranscript([
    { sender: 'user', text: 'What is XState?' },
    { sender: 'bot', text: FAKE_REPLY },
  ]);
  fake.queue({ content: 'A state machine library.' });
  await chat.sendWithClick('And Vite?');
  await chat.expectTranscript([
    { sender: 'user', text: 'What is XState?' },
    { sender: 'bot', text: FAKE_REPLY },
    { sender: 'user', text: 'And Vite?' },
    { sender: 'bot', text: 'A state machine library.' },
  ]);

  expect(fake.requests.map((request) => request.body)).toEqual([
    expectedPayload('What is XState?', mode),
    expectedPayload('And Vite?', mode),
  ]);
  for (const request of fake.requests) {
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${providerToken(mode)}`);
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    // The openai client's telemetry headers are switched off: they break providers' CORS rules.
    expect(Object.keys(request.headers).filter((name) => name.startsWith('x-stainless'))).toEqual([]);
  }
});

test.describe('proxy mode', () => {
  test.skip(({ mode }) => mode !== 'proxy', 'the token stays on the server only in proxy mode');

  test('the page calls its own origin with a placeholder and never sees the provider token', async ({
    chat,
    fake,
    page,
  }) => {
    const bodies: string[] = [];
    page.on('response', async (response) => {
      bodies.push(JSON.stringify(await response.allHeaders()));
      bodies.push(await response.text().catch(() => ''));
    });
    // A fresh load, so that the app's own files are among the responses read.
    await chat.open();
    await chat.sendWithEnter('Keep the token secret');
    await chat.expectTranscript([
      { sender: 'user', text: 'Keep the token secret' },
      { sender: 'bot', text: FAKE_REPLY },
    ]);
    fake.queue({ status: 401 });
    await chat.sendWithEnter('And when it is refused?');
    await expect(chat.bubbles('bot')).toHaveCount(2);

    const appOrigin = new URL(page.url()).origin;
    const chatCalls = chat.requests.filter((request) => request.url.includes('/chat/completions'));
    expect(chatCalls.map((request) => request.url)).toEqual([
      `${appOrigin}/api/llm/v1/chat/completions`,
      `${appOrigin}/api/llm/v1/chat/completions`,
    ]);
    for (const call of chatCalls) expect(call.headers.authorization).toBe(`Bearer ${PROXY_PLACEHOLDER_KEY}`);
    expect(chat.requests.filter((request) => new URL(request.url).origin !== appOrigin)).toEqual([]);
    expect(chat.requests.filter((request) => JSON.stringify(request).includes(UPSTREAM_API_KEY))).toEqual([]);
    expect(bodies.filter((body) => body.includes(UPSTREAM_API_KEY))).toEqual([]);
    expect(bodies.length).toBeGreaterThan(4);

    expect(fake.requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${UPSTREAM_API_KEY}`,
      `Bearer ${UPSTREAM_API_KEY}`,
    ]);
    // Nothing of the visitor's request but the body is passed on: not the placeholder, not their cookies.
    expect(JSON.stringify(fake.requests.map((request) => request.headers))).not.toContain(PROXY_PLACEHOLDER_KEY);
  });
});

test.describe('direct mode', () => {
  test.skip(({ mode }) => mode !== 'direct', 'the page calls the provider itself only in direct mode');

  test('the page calls the provider itself, across origins, with the embedded token', async ({ chat, fake, page }) => {
    await chat.sendWithEnter('Straight to the provider');
    await chat.expectTranscript([
      { sender: 'user', text: 'Straight to the provider' },
      { sender: 'bot', text: FAKE_REPLY },
    ]);
    const chatCalls = chat.requests.filter((request) => request.method === 'POST');
    expect(chatCalls.map((request) => request.url)).toEqual([`${DIRECT_PROVIDER_BASE_URL}/chat/completions`]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].headers.origin).toBe(new URL(page.url()).origin);
  });
});
