import { CHAT_COMPLETIONS_PATH } from '../contract/llm';
import { PROVIDER_SECRET } from '../testing/fake-provider';
import { ERROR, expect, test } from './fixtures';

// What a provider says besides its reply never reaches the visitor: checked through the proxy, which stands between
// them (in direct mode the page talks to the provider itself).
// Run in proxy mode only (e2e/playwright.config.ts): the proxy is what stands between the provider and the page.

test("a provider's error event mid-stream shows only the spec's error, and none of its words reach the page", async ({
  app,
  chat,
  fake,
  page,
}) => {
  const from = app.output.length;
  fake.respondWith({ hostile: ['Half ', 'a reply'], ending: 'error' });

  await chat.sendWithEnter('Tell me a secret');
  await chat.expectTranscript([
    { sender: 'user', text: 'Tell me a secret' },
    { sender: 'bot', text: 'Half a reply' },
    { sender: 'bot', text: ERROR },
  ]);
  await chat.expectReadyAfterReply();

  // What the browser receives, read whole: the page's own stream is consumed by the app as it comes.
  const received = await page.evaluate(
    async ({ path, body }) => {
      const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return [...response.headers].join('\n') + (await response.text());
    },
    { path: CHAT_COMPLETIONS_PATH, body: JSON.stringify(fake.requests[0].body) },
  );
  expect(received).toContain('"Half "');
  expect(received).toContain('The language model stream broke off.');
  expect(received).not.toContain(PROVIDER_SECRET);
  expect(await page.content()).not.toContain(PROVIDER_SECRET);
  expect(chat.consoleErrors.join('\n')).not.toContain(PROVIDER_SECRET);
  // The server says what kind of error it was, not what the provider wrote.
  const logged = app.output.slice(from).join('\n');
  expect(logged).toContain('type=server_error code=rate_limit_exceeded');
  expect(logged).not.toContain(PROVIDER_SECRET);
});
