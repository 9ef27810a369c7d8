import { FAKE_REPLY } from '../testing/fake-provider';
import { expectNoAxeViolations } from './axe-check';
import { ERROR, expect, NO_CONTENT, test } from './fixtures';

test.describe('axe finds no WCAG 2.1 A/AA violations', () => {
  test('when idle and empty', async ({ chat, page }) => {
    await expect(chat.input).toHaveAttribute('placeholder', 'Your message here');
    await expectNoAxeViolations(page, 'when idle');
  });

  test('while sending', async ({ chat, fake, page }) => {
    fake.respondWith({ hold: true });
    await chat.sendWithEnter('Is this accessible?');
    await expect.poll(() => fake.heldCount).toBe(1);
    await chat.expectSending();
    await expectNoAxeViolations(page, 'while sending');
    // Still sending (the held request runs under a deadline far longer than the test), so it was the sending
    // screen that axe checked.
    await expect(chat.bubbles('bot')).toHaveCount(0);
    expect(fake.heldCount).toBe(1);
    fake.release({ content: 'Yes.' });
    await expect(chat.bubbles('bot')).toHaveText(['Yes.']);
  });

  test('with messages of both kinds, including the error and the no-content messages', async ({ chat, fake, page }) => {
    fake.queue({ content: FAKE_REPLY }, { content: null }, { status: 500 });
    for (const text of ['First', 'Second', 'Third']) {
      await chat.sendWithEnter(text);
      await chat.expectReadyAfterReply();
    }
    await expect(chat.bubbles('bot')).toHaveText([FAKE_REPLY, NO_CONTENT, ERROR]);
    await expectNoAxeViolations(page, 'with messages');
  });

  test('on a 375 px wide screen with messages', async ({ chat, page }) => {
    await page.setViewportSize({ width: 375, height: 667 });
    await chat.sendWithEnter('Small screen');
    await expect(chat.bubbles('bot')).toHaveText([FAKE_REPLY]);
    await expectNoAxeViolations(page, 'at 375 px');
  });
});

test('works with the keyboard alone: Tab order, Enter, Space on Send, focus back in the box', async ({
  chat,
  fake,
  page,
}) => {
  // Each request is held until the test has seen the sending screen it causes.
  fake.respondWith({ hold: true });
  const reply = async (text: string) => {
    await expect.poll(() => fake.heldCount).toBe(1);
    await chat.expectSending();
    fake.release({ content: text });
  };

  // From the top of the page: the conversation (focusable so it can be scrolled), the box, the button.
  await page.keyboard.press('Tab');
  await expect(chat.log).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(chat.input).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(chat.sendButton).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(chat.input).toBeFocused();

  await page.keyboard.type('Typed, sent with Enter');
  await page.keyboard.press('Enter');
  await reply('First reply');
  await expect(chat.bubbles('bot')).toHaveText(['First reply']);
  await chat.expectReadyAfterReply();

  await page.keyboard.type('Sent with the button');
  await page.keyboard.press('Tab');
  await expect(chat.sendButton).toBeFocused();
  await page.keyboard.press('Space');
  await reply('Second reply');
  await expect(chat.bubbles('bot')).toHaveText(['First reply', 'Second reply']);
  await chat.expectReadyAfterReply();

  await chat.expectTranscript([
    { sender: 'user', text: 'Typed, sent with Enter' },
    { sender: 'bot', text: 'First reply' },
    { sender: 'user', text: 'Sent with the button' },
    { sender: 'bot', text: 'Second reply' },
  ]);
});

test('the live region announces each new message once, complete, and nothing while typing or streaming', async ({
  chat,
  fake,
  page,
}) => {
  // A screen reader announces what is added to a polite live region, but holds back while the region is
  // aria-busy and announces its content once it is not. Record every addition the log's reader could hear, with the
  // region's busy state once the change is committed; decoration hidden from screen readers is not heard.
  await chat.log.evaluate((log) => {
    const changes: { text: string; busy: boolean }[] = [];
    (window as unknown as { logChanges: typeof changes }).logChanges = changes;
    const heard = (node: Node) => {
      const element = node instanceof Element ? node : node.parentElement;
      return !element?.closest('[aria-hidden="true"]') && (node.textContent ?? '') !== '';
    };
    new MutationObserver((records) => {
      const busy = log.getAttribute('aria-busy') === 'true';
      for (const record of records) {
        if (record.type === 'characterData') changes.push({ text: `changed: ${record.target.textContent}`, busy });
        for (const node of record.addedNodes)
          if (heard(node)) changes.push({ text: `added: ${node.textContent}`, busy });
      }
    }).observe(log, { childList: true, subtree: true, characterData: true });
  });
  const logChanges = () =>
    page.evaluate(() => (window as unknown as { logChanges: { text: string; busy: boolean }[] }).logChanges);
  const announced = async () => (await logChanges()).filter((change) => !change.busy).map((change) => change.text);
  fake.respondWith({ openStream: true });

  await chat.input.pressSequentially('Hello, is anyone there?');
  expect(await logChanges(), 'changes to the live region while typing').toEqual([]);

  await page.keyboard.press('Enter');
  await expect.poll(() => fake.streams.length).toBe(1);
  const [stream] = fake.streams;
  for (const piece of ['Yes, ', 'I am ', 'here.']) {
    stream.piece(piece);
    await expect(chat.log).toHaveAttribute('aria-busy', 'true');
  }
  await expect(chat.log.getByText('Yes, I am here.')).toBeVisible();
  stream.end();
  await expect(chat.bubbles('bot')).toHaveText(['Yes, I am here.']);
  await expect(chat.log).toHaveAttribute('aria-busy', 'false');
  await chat.expectReadyAfterReply();
  await chat.input.pressSequentially('Typing again');
  // Give a late re-render the chance to show up.
  await page.waitForTimeout(200);
  expect(
    (await logChanges()).filter((change) => change.busy).length,
    'the pieces were added while the region was busy',
  ).toBeGreaterThan(0);
  // The reply is heard once, complete: its bubble (with the "Assistant:" label) came in while the region was busy, and
  // what is added once it is not is the finished reply.
  expect(await announced(), 'what the live region announces').toEqual([
    'added: You:Hello, is anyone there?',
    expect.stringMatching(/^added: (Assistant:)?Yes, I am here\.$/),
  ]);
  await expect(chat.log).toHaveAttribute('aria-live', 'polite');
});
