import type { Locator, Page } from '@playwright/test';
import { FAKE_REPLY } from '../testing/fake-provider';
import { box, type ChatPage, expect, test } from './fixtures';

/** A colour as red, green and blue from 0 to 255, read from a computed `rgb()`/`rgba()` value. */
async function colour(locator: Locator, property: 'backgroundColor' | 'color') {
  const value = await locator.evaluate((element, name) => getComputedStyle(element)[name], property);
  const match = /^rgba?\((\d+(?:\.\d+)?)[, ]+(\d+(?:\.\d+)?)[, ]+(\d+(?:\.\d+)?)/.exec(value);
  if (!match) throw new Error(`${property} is "${value}", not an rgb() colour`);
  const [red, green, blue] = match.slice(1).map(Number);
  return { red, green, blue, value };
}

/** The page scrolls sideways if its content is wider than the viewport. */
function horizontalOverflow(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

async function exchange(chat: ChatPage, text: string) {
  const replies = await chat.bubbles('bot').count();
  await chat.sendWithEnter(text);
  await expect(chat.bubbles('bot')).toHaveCount(replies + 1);
  await chat.expectReadyAfterReply();
}

test('user bubbles sit right on blue, bot bubbles left on grey', async ({ chat, page }) => {
  await exchange(chat, 'Hi');
  const user = chat.bubbles('user').first();
  const bot = chat.bubbles('bot').first();
  const list = await box(chat.log);
  const middle = list.x + list.width / 2;
  const userBox = await box(user);
  const botBox = await box(bot);

  // Short messages: each hugs its own side of the list, within the list's padding.
  expect(userBox.x, 'user bubble left edge').toBeGreaterThan(middle);
  expect(list.x + list.width - (userBox.x + userBox.width), 'gap right of the user bubble').toBeLessThan(24);
  expect(botBox.x + botBox.width, 'bot bubble right edge').toBeLessThan(middle);
  expect(botBox.x - list.x, 'gap left of the bot bubble').toBeLessThan(24);

  const userBackground = await colour(user, 'backgroundColor');
  expect(userBackground.blue, `user bubble background ${userBackground.value} is blue`).toBeGreaterThan(
    Math.max(userBackground.red, userBackground.green) + 80,
  );
  const botBackground = await colour(bot, 'backgroundColor');
  const channels = [botBackground.red, botBackground.green, botBackground.blue];
  expect(Math.max(...channels) - Math.min(...channels), `bot bubble ${botBackground.value} is grey`).toBeLessThan(16);
  expect(Math.min(...channels), `bot bubble ${botBackground.value} is a light grey`).toBeGreaterThan(200);
  // The grey must stand out from the card it sits on.
  const cardBackground = await colour(page.getByRole('main'), 'backgroundColor');
  expect(Math.min(cardBackground.red, cardBackground.green, cardBackground.blue), 'the card is white').toBe(255);
  expect(Math.max(...channels), `bot bubble ${botBackground.value} differs from the card`).toBeLessThan(250);
});

test('the card is at most large (32rem) and bubbles at most extra-small (20rem)', async ({ chat, fake, page }) => {
  const long = 'A long message that wraps over several lines of the bubble. '.repeat(8).trim();
  fake.queue({ content: long });
  await exchange(chat, long);
  const rem = await page.evaluate(() => Number.parseFloat(getComputedStyle(document.documentElement).fontSize));

  expect((await box(chat.main)).width, 'card width on a 1280 px screen').toBeCloseTo(32 * rem, 0);
  for (const bubble of [chat.bubbles('user').first(), chat.bubbles('bot').first()]) {
    const { width, height } = await box(bubble);
    expect(width, 'width of a long bubble').toBeLessThanOrEqual(20 * rem + 0.5);
    expect(width, 'a long bubble fills its maximum width').toBeGreaterThan(18 * rem);
    expect(height, 'a long bubble wraps').toBeGreaterThan(3 * rem);
  }
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 375, height: 667 },
]) {
  test(`the conversation is 80% of the viewport's height at ${viewport.width}×${viewport.height}`, async ({
    chat,
    page,
  }) => {
    await page.setViewportSize(viewport);
    await expect.poll(async () => (await box(chat.log)).height).toBeCloseTo(viewport.height * 0.8, 0);
  });
}

/** How far the page scrolls down: its content's height past the viewport's. */
function verticalOverflow(page: Page) {
  return page.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight);
}

// New conversation and Download conversation come with the first reply: they take no height the card did not have.
for (const viewport of [
  { width: 1366, height: 768 },
  { width: 1280, height: 720 },
  { width: 1280, height: 900 },
]) {
  test(`at ${viewport.width}×${viewport.height} the card fits the window, before and after the first reply`, async ({
    chat,
    page,
  }) => {
    await page.setViewportSize(viewport);
    await expect.poll(async () => (await box(chat.log)).height).toBeCloseTo(viewport.height * 0.8, 0);
    const fits = async (when: string) => {
      expect(await verticalOverflow(page), `the page's scroll down ${when}, in CSS px`).toBeLessThanOrEqual(0);
      const card = await box(chat.main);
      expect(card.y + card.height, `the card's bottom edge ${when}`).toBeLessThanOrEqual(viewport.height);
      await expect(chat.sendButton).toBeInViewport({ ratio: 1 });
      return card.height;
    };
    const before = await fits('before the first message');
    await exchange(chat, 'Hi');
    await expect(page.getByRole('button', { name: 'New conversation' })).toBeInViewport({ ratio: 1 });
    await expect(page.getByRole('button', { name: 'Download conversation' })).toBeInViewport({ ratio: 1 });
    expect(await fits('after the first reply'), "the card's height after the first reply").toBeCloseTo(before, 0);
    expect((await box(chat.log)).height, 'the conversation is still 80% of the window').toBeCloseTo(
      viewport.height * 0.8,
      0,
    );
  });
}

test('the conversation follows the newest message', async ({ chat, fake }) => {
  const paragraph = 'A reply long enough to take several lines in its bubble, so that the list fills up quickly. ';
  for (let i = 1; i <= 6; i++) {
    fake.queue({ content: `${i}: ${paragraph.repeat(3)}` });
    await exchange(chat, `Message ${i}`);
    // The list scrolls in the frame after the reply is rendered, so the distance is polled rather than read once.
    await expect
      .poll(() => chat.log.evaluate((log) => log.scrollHeight - log.clientHeight - log.scrollTop), {
        message: `after reply ${i}, distance from the bottom of the list`,
      })
      .toBeLessThanOrEqual(1);
    if (i === 6) {
      const overflowing = await chat.log.evaluate((log) => log.scrollHeight > log.clientHeight);
      expect(overflowing, 'the list overflows by now').toBe(true);
    }
    await expect(chat.bubbles('bot').last()).toBeInViewport();
  }
  await expect(chat.bubbles('user').first()).not.toBeInViewport();
});

test.describe('small screens', () => {
  test('at 375 px wide nothing overflows sideways and the controls stay usable', async ({ chat, page }) => {
    await page.setViewportSize({ width: 375, height: 667 });
    const unbroken = `https://example.com/${'a'.repeat(300)}`;
    await exchange(chat, unbroken);
    await exchange(chat, 'Ordinary words that wrap as usual across the narrow bubble, with an emoji 🤖 at the end.');

    expect(await horizontalOverflow(page), 'sideways overflow in CSS px').toBeLessThanOrEqual(0);
    for (const control of [chat.main, chat.log, chat.input, chat.sendButton, ...(await chat.bubbles().all())]) {
      const { x, width } = await box(control);
      expect(x, `${control} starts inside the screen`).toBeGreaterThanOrEqual(0);
      expect(x + width, `${control} ends inside the screen`).toBeLessThanOrEqual(375);
    }
    await expect(chat.bubbles('user').first()).toHaveText(unbroken);
  });

  test.describe('at 200% zoom (a 1280×800 screen is then 640×400 CSS px)', () => {
    test.use({ viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 });

    test('nothing overflows sideways and a message can be sent and read', async ({ chat, page }) => {
      expect(await horizontalOverflow(page), 'sideways overflow in CSS px').toBeLessThanOrEqual(0);
      await expect(page.getByRole('heading', { level: 1, name: 'AI Assistant' })).toBeVisible();
      await chat.input.click();
      await page.keyboard.type('Zoomed in');
      await chat.sendButton.click();
      await expect(chat.bubbles('bot')).toHaveText([FAKE_REPLY]);
      await chat.expectReadyAfterReply();
      for (const control of [chat.input, chat.sendButton, chat.bubbles('bot').first()]) {
        await control.scrollIntoViewIfNeeded();
        await expect(control).toBeInViewport({ ratio: 1 });
      }
      expect(await horizontalOverflow(page), 'sideways overflow in CSS px').toBeLessThanOrEqual(0);
    });
  });
});
