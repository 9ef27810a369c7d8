import { fileURLToPath } from 'node:url';
import { FAKE_REPLY } from '../testing/fake-provider';
import { awayFromMinuteEdge, type ProductionServer } from '../testing/production-app';
import { startAppServer } from './app-server';
import { expectNoAxeViolations } from './axe-check';
import { ERROR, expect, test } from './fixtures';

// A visitor refused by the server's own limits (proxy mode: in direct mode the page has no server of its own to
// refuse it). Each test runs a server of its own with a limit set, and moves the page's clock past the wait the
// refusal asked for, so that the test never waits it out.
// Run in proxy mode only (e2e/playwright.config.ts): the limits are the proxy’s.

let server: ProductionServer | undefined;
test.afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('over the rate limit, the visitor is told so and when to try again; Retry waits until then', async ({
  chat,
  fake,
}) => {
  // Up to 15 s of it waiting for a fresh clock minute.
  test.setTimeout(60_000);
  server = await startAppServer('proxy', fake.baseURL, { RATE_LIMIT_PER_MINUTE: '1' });
  await chat.page.clock.install();
  await chat.open(server.url);
  // The limit counts per clock minute: both messages must fall in one, leaving a wait of more than the second the test
  // first moves the clock by. Two sends take well under 5 s; the margin is three times that, for a busy machine.
  await awayFromMinuteEdge(15_000);
  await chat.sendWithEnter('First');
  await chat.expectTranscript([
    { sender: 'user', text: 'First' },
    { sender: 'bot', text: FAKE_REPLY },
  ]);

  await chat.sendWithEnter('Second');

  await chat.expectTranscript([
    { sender: 'user', text: 'First' },
    { sender: 'bot', text: FAKE_REPLY },
    { sender: 'user', text: 'Second' },
    { sender: 'bot', text: ERROR },
  ]);
  // From here the page's time moves only as the test moves it. It pauses a second ahead: the page's clock runs on
  // while the test asks it the time, and a pause in its past is refused ("Cannot fast-forward to the past"). The wait
  // is read after the pause, and left more than 2 s (checked below), so Retry is still disabled a second later.
  await chat.page.clock.pauseAt(await chat.page.evaluate(() => Date.now() + 1000));
  const hint = chat.log.locator('[data-limit-hint]');
  await expect(hint).toHaveText(/^Too many messages in a short time\. You can try again in (\d+ seconds?|1 minute)\.$/);
  const text = (await hint.textContent()) ?? '';
  const seconds = text.includes('1 minute') ? 60 : Number(/in (\d+) second/.exec(text)?.[1]);
  expect(seconds).toBeGreaterThan(2);
  await expect(chat.retryButton).toBeDisabled();
  expect(fake.requests).toHaveLength(1);

  await chat.page.clock.fastForward(1000);
  await expect(chat.retryButton).toBeDisabled();
  await chat.page.clock.fastForward(seconds * 1000);
  await expect(chat.retryButton).toBeEnabled();
  await expect(hint).toHaveCount(0);
  expect(server.output.join('\n')).toContain('429');
});

test('past the daily allowance, a French visitor is told so in French, and Retry waits for the next day', async ({
  chat,
  fake,
}) => {
  // 10 tokens: less than any request's reservation, so the first message is refused.
  server = await startAppServer('proxy', fake.baseURL, { LLM_DAILY_TOKEN_LIMIT: '10' });
  await chat.page.clock.install();
  await chat.page.goto(`${server.url}/?lang=fr`);
  await expect(chat.page.locator('html')).toHaveAttribute('lang', 'fr');

  await chat.input.fill('Bonjour');
  await chat.input.press('Enter');

  const hint = chat.log.locator('[data-limit-hint]');
  await expect(hint).toHaveText(
    // Until the next UTC midnight: hours, or minutes or seconds late in the day.
    /^L’assistant a atteint sa limite pour aujourd’hui\. Vous pourrez réessayer dans \d+ (heures?|minutes?|secondes?)\.$/,
  );
  const retry = chat.page.getByRole('button', { name: 'Réessayer' });
  await expect(retry).toBeDisabled();
  expect(fake.requests).toHaveLength(0);
  // The wait lasts until midnight UTC: whether axe outlasts it does not matter, Retry was disabled before.
  await expectNoAxeViolations(chat.page, 'with the limit hint and the disabled Retry');

  // Retry-After is the time to the next UTC midnight: at most a day.
  await chat.page.clock.fastForward(24 * 3600 * 1000);
  await expect(retry).toBeEnabled();
});

test("a site's own limit_message replaces the reason, and the time to wait follows it", async ({ chat, fake }) => {
  server = await startAppServer('proxy', fake.baseURL, {
    LLM_DAILY_TOKEN_LIMIT: '10',
    ASSISTANT_CONFIG: fileURLToPath(new URL('./site-config.yaml', import.meta.url)),
  });
  await chat.open(server.url);
  await chat.sendWithEnter('Hello');
  await expect(chat.log.locator('[data-limit-hint]')).toHaveText(
    /^Our helpers are resting; the shop is open as usual\. You can try again in \d+ (hours?|minutes?|seconds?)\.$/,
  );
});
