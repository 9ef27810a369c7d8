import type { Locator } from '@playwright/test';
import { FEEDBACK_PATH } from '../contract/feedback';
import { startReturnsSite } from './app-server';
import { test as base, contrast, expect, SERVER_START, transitionsEnded } from './fixtures';

// Helpful / Not helpful, the reasons, Contact us and the visitor's own copy, against the production build and server
// (proxy mode: a direct-mode page has no server to vote to) with a site that has pages and a `contact:`.

const CONTACT = 'https://shop.example/contact';
const QUESTION = 'Can I return a rake bought last week? private-marker-7f3a';

const FEEDBACK_CONFIG = `contact: ${CONTACT}\nknowledge:\n  - path: ./docs\n    url: https://shop.example/\n`;
const test = base.extend<{ feedbackApp: { url: string; output: string[] } }>({
  feedbackApp: [
    async ({ provider, servers }, use) =>
      use(await servers.once('feedback app', () => startReturnsSite(provider.baseURL, FEEDBACK_CONFIG))),
    SERVER_START,
  ],
  baseURL: async ({ feedbackApp }, use) => {
    await use(feedbackApp.url);
  },
});

// Run in proxy mode only (e2e/playwright.config.ts): votes go to the page’s own server.

test('the two buttons on replies only, the reasons, a vote with no text, and Contact us after Not helpful', async ({
  chat,
  fake,
  page,
}) => {
  fake.respondWith({ content: 'Yes, within thirty days [1].' });
  await chat.markdownLoaded();
  await chat.sendWithEnter(QUESTION);
  await chat.expectReadyAfterReply();
  fake.respondWith({ status: 500 });
  await chat.sendWithEnter('And a spade?');
  await chat.expectIdle();
  const helpful = page.getByRole('button', { name: 'Helpful', exact: true });
  const notHelpful = page.getByRole('button', { name: 'Not helpful' });
  // The reply has them; the error after it has none.
  await expect(helpful).toHaveCount(1);
  await expect(notHelpful).toHaveCount(1);
  await expect(helpful).toHaveAttribute('aria-pressed', 'false');

  const voted = page.waitForRequest((request) => request.url().endsWith(FEEDBACK_PATH));
  await helpful.focus();
  await page.keyboard.press('Enter');
  const vote = await voted;
  expect(vote.method()).toBe('POST');
  expect(Object.keys(vote.postDataJSON())).toEqual(['reply', 'rating']);
  expect(vote.postData()).not.toContain('private-marker');
  expect(vote.postData()).not.toContain('thirty');
  expect((await vote.response())?.status()).toBe(204);
  await expect(helpful).toHaveAttribute('aria-pressed', 'true');

  await notHelpful.click();
  await expect(notHelpful).toHaveAttribute('aria-pressed', 'true');
  await expect(helpful).toHaveAttribute('aria-pressed', 'false');
  const reasons = page.getByRole('group', { name: 'What was wrong?' });
  await expect(reasons.getByRole('button')).toHaveText([
    'Wrong',
    'Out of date',
    'Unclear',
    'Not what I asked',
    'Something else',
  ]);
  const reasoned = page.waitForRequest((request) => request.url().endsWith(FEEDBACK_PATH));
  await reasons.getByRole('button', { name: 'Out of date' }).click();
  expect((await reasoned).postDataJSON()).toMatchObject({ rating: 'down', reason: 'outdated' });
  const contact = page.getByRole('link', { name: 'Contact us' });
  await expect(contact).toHaveAttribute('href', CONTACT);
  await expect(contact).toHaveAttribute('target', '_blank');
  await expect(contact).toHaveAttribute('rel', 'noopener noreferrer');
});

test('Contact us under a reply the pages did not cover; the download is made with no request', async ({
  chat,
  fake,
  page,
}) => {
  fake.respondWith({ content: 'The pages do not say.' });
  await chat.markdownLoaded();
  await chat.sendWithEnter('Do you sell submarines?');
  await chat.expectReadyAfterReply();
  await expect(page.getByRole('link', { name: 'Contact us' })).toHaveCount(1);

  const before = chat.requests.length;
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download conversation' }).click();
  const file = await download;
  const path = await file.path();
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(path, 'utf8');
  expect(text).toContain('Do you sell submarines?');
  expect(text).toContain('The pages do not say.');
  expect(chat.requests.slice(before).filter((request) => !request.url.startsWith('blob:'))).toEqual([]);
});

/** A control's own background, and the colour it is drawn on: the nearest ancestor's that is not transparent. */
async function colours(control: Locator) {
  return control.evaluate((element) => {
    const clear = (colour: string) => colour === 'rgba(0, 0, 0, 0)' || colour === 'transparent';
    let behind = element.parentElement;
    while (behind && clear(getComputedStyle(behind).backgroundColor)) behind = behind.parentElement;
    const own = getComputedStyle(element);
    return {
      own: own.backgroundColor,
      border: own.borderTopColor,
      borderWidth: Number.parseFloat(own.borderTopWidth),
      behind: behind ? getComputedStyle(behind).backgroundColor : 'rgb(255, 255, 255)',
    };
  });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`the chosen vote and reason stand out from the others (${scheme}), and a counted vote is thanked`, async ({
    chat,
    fake,
    page,
    baseURL,
  }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(baseURL ?? '/');
    fake.respondWith({ content: 'Yes, within thirty days [1].' });
    await chat.markdownLoaded();
    await chat.sendWithEnter(QUESTION);
    await chat.expectReadyAfterReply();
    const helpful = page.getByRole('button', { name: 'Helpful', exact: true });
    const notHelpful = page.getByRole('button', { name: 'Not helpful' });
    const thanks = page.getByRole('status').filter({ hasText: /^Thanks$/ });
    await expect(thanks).toHaveCount(0);
    await notHelpful.click();
    // Said in a polite live region once the server has counted it.
    await expect(thanks).toHaveCount(1);
    await expect(thanks).toHaveAttribute('role', 'status');
    const reasons = page.getByRole('group', { name: 'What was wrong?' });
    const chosen = reasons.getByRole('button', { name: 'Out of date' });
    await chosen.click();
    await expect(chosen).toHaveAttribute('aria-pressed', 'true');
    await expect(thanks).toHaveCount(1);
    // Measured at rest, not hovered.
    await page.mouse.move(0, 0);
    // and with the fill's fade ended: half-way through it the colour is neither the old nor the new one.
    await transitionsEnded(page);

    // The pressed thumb and the chosen reason are filled: 3:1 against the card (WCAG 1.4.11), where the thumb not
    // pressed has no fill of its own; the chosen reason keeps an outline at least as strong as the others'.
    const pressed = await colours(notHelpful);
    expect(
      contrast(pressed.own, pressed.behind),
      `pressed thumb ${pressed.own} on ${pressed.behind}`,
    ).toBeGreaterThanOrEqual(3);
    const unpressed = await colours(helpful);
    expect(
      contrast(unpressed.own === 'rgba(0, 0, 0, 0)' ? unpressed.behind : unpressed.own, unpressed.behind),
    ).toBeLessThan(1.5);
    const reason = await colours(chosen);
    const other = await colours(reasons.getByRole('button', { name: 'Unclear' }));
    expect(
      contrast(reason.own, reason.behind),
      `chosen reason ${reason.own} on ${reason.behind}`,
    ).toBeGreaterThanOrEqual(3);
    expect(reason.borderWidth).toBeGreaterThanOrEqual(other.borderWidth);
    expect(contrast(reason.border, reason.behind)).toBeGreaterThanOrEqual(contrast(other.border, other.behind));
  });
}
