import { expect, test } from './fixtures';

// Streaming runs where the build asks for it: proxy mode's default (direct mode keeps the specification's request).
// Run in proxy mode only (e2e/playwright.config.ts): this build asks for whole replies.

const LONG_LINE = 'A line of a long streamed reply, there to fill the conversation well past its height. ';

test('a visitor who scrolls back mid-stream stays where they are, with Jump to latest, and no jump at the end', async ({
  chat,
  fake,
}) => {
  fake.respondWith({ openStream: true });
  await chat.sendWithEnter('Tell me a long story');
  await expect.poll(() => fake.streams.length).toBe(1);
  const [stream] = fake.streams;
  const distanceFromEnd = () => chat.log.evaluate((log) => log.scrollHeight - log.clientHeight - log.scrollTop);

  // Following: while the visitor stays at the end, the newest text stays in view as it grows.
  for (let i = 0; i < 30; i++) stream.piece(LONG_LINE);
  await expect.poll(() => chat.log.evaluate((log) => log.scrollHeight > log.clientHeight * 1.5)).toBe(true);
  await expect.poll(distanceFromEnd, { message: 'distance from the end while following' }).toBeLessThanOrEqual(1);
  await expect(chat.page.getByRole('button', { name: 'Jump to latest' })).toHaveCount(0);

  // The visitor scrolls back with the wheel: the list stays where they put it as more text arrives.
  await chat.log.hover();
  await chat.page.mouse.wheel(0, -400);
  await expect.poll(distanceFromEnd).toBeGreaterThan(300);
  const readingAt = await chat.log.evaluate((log) => log.scrollTop);
  const jump = chat.page.getByRole('button', { name: 'Jump to latest' });
  await expect(jump).toBeVisible();
  for (let i = 0; i < 10; i++) stream.piece(LONG_LINE);
  await expect(chat.log).toContainText(LONG_LINE.repeat(40).trim());
  stream.end();
  await chat.expectReadyAfterReply();
  // Two frames: the app scrolls (when it does) in the frame after a render.
  await chat.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  expect(await chat.log.evaluate((log) => log.scrollTop), 'where the visitor was reading').toBe(readingAt);
  await expect(jump).toBeVisible();

  // Jump to latest brings the end into view and goes away.
  await jump.click();
  await expect.poll(distanceFromEnd).toBeLessThanOrEqual(1);
  await expect(jump).toHaveCount(0);
});

for (const how of ['the Stop button', 'Escape'] as const) {
  test(`${how} ends a streaming reply: the text stays, the stop is said, the provider's request is closed, and the box is back within a frame`, async ({
    chat,
    fake,
    page,
  }) => {
    fake.respondWith({ openStream: true });
    await chat.sendWithEnter('Write me an essay');
    await expect.poll(() => fake.streams.length).toBe(1);
    fake.streams[0].piece('The first words');
    await expect(chat.log.getByText('The first words')).toBeVisible();

    // The frame after the stop is when the visitor can type again: measured in the page, not by polling.
    const enabledInFrame = page.evaluate(
      () =>
        new Promise<boolean>((resolve) => {
          const input = document.querySelector<HTMLInputElement>('input[name="message"]');
          document.addEventListener(
            'chat-stop-requested',
            () => requestAnimationFrame(() => resolve(input?.disabled === false && document.activeElement === input)),
            { once: true },
          );
        }),
    );
    await page.evaluate(() => {
      // Marks the moment of the stop for the frame check above; it runs before the app's own handlers.
      const mark = () => document.dispatchEvent(new Event('chat-stop-requested'));
      document.addEventListener('keydown', (event) => event.key === 'Escape' && mark(), { capture: true, once: true });
      document.addEventListener('click', mark, { capture: true, once: true });
    });
    if (how === 'Escape') await page.keyboard.press('Escape');
    else await chat.stopButton.click();

    expect(await enabledInFrame, 'the box is enabled and focused in the next frame').toBe(true);
    await chat.expectReadyAfterReply();
    await chat.expectTranscript([
      { sender: 'user', text: 'Write me an essay' },
      { sender: 'bot', text: 'The first words' },
    ]);
    await expect(chat.stoppedNotes).toHaveCount(1);
    await expect(chat.retryButton).toBeVisible();
    await expect.poll(() => fake.requests[0].aborted, { message: 'the provider saw the request closed' }).toBe(true);
    expect(chat.chatErrors(), 'a stop is not an error').toEqual([]);
  });
}
