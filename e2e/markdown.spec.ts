import { expectNoAxeViolations } from './axe-check';
import { box, ChatPage, expect, holdRoute, overlap, test } from './fixtures';

// Rendering does not depend on how the page reaches the model: checked once, in proxy mode.
// Run in proxy mode only (e2e/playwright.config.ts).

const CODE = 'function add(a: number,  b: number) {\n\treturn a + b;\n}';

const RICH_REPLY = [
  'Here is **bold**, *italic*, ~~struck~~ and `inline code`.',
  '- first\n- second\n  - nested',
  '3. three\n4. four',
  '- [x] done\n- [ ] open',
  '| Name | Size |\n| :--- | ---: |\n| react-markdown | 50 KB |\n| micromark | 22 KB |',
  '> A quote.',
  `\`\`\`ts\n${CODE}\n\`\`\``,
  'Read [the docs](https://example.com/docs) or write to <mailto:help@example.com>.',
].join('\n\n');

/** Sends a message and waits until its reply is in and the card is ready again; returns the reply's bubble. */
async function exchange(chat: ChatPage, message: string) {
  await chat.sendWithEnter(message);
  await chat.expectReadyAfterReply();
  return chat.bubbles('bot').last();
}

test('a bot reply renders as Markdown styled by the card; the visitor message stays plain text', async ({
  chat,
  fake,
}) => {
  await chat.markdownLoaded();
  fake.queue({ content: RICH_REPLY });
  const typed = 'Show me **Markdown** and <b>HTML</b>, please';
  const bubble = await exchange(chat, typed);

  await expect(chat.bubbles('user')).toHaveText([typed]);
  await expect(chat.bubbles('user').locator('strong, b')).toHaveCount(0);

  await expect(bubble.locator('strong').first()).toHaveText('bold');
  await expect(bubble.locator('em')).toHaveText('italic');
  await expect(bubble.locator('del')).toHaveText('struck');
  await expect(bubble.locator(':not(pre) > code')).toHaveText('inline code');
  await expect(bubble.locator('ul').first().locator(':scope > li')).toHaveText(['first', 'secondnested']);
  await expect(bubble.locator('ol')).toHaveAttribute('start', '3');
  await expect(bubble.locator('ol > li')).toHaveText(['three', 'four']);
  await expect(bubble.getByRole('img', { name: 'Done', exact: true })).toBeVisible();
  await expect(bubble.getByRole('img', { name: 'Not done' })).toBeVisible();
  await expect(bubble.getByRole('columnheader')).toHaveText(['Name', 'Size']);
  await expect(bubble.getByRole('cell')).toHaveText(['react-markdown', '50 KB', 'micromark', '22 KB']);
  await expect(bubble.getByRole('cell', { name: '50 KB' })).toHaveCSS('text-align', 'end');
  await expect(bubble.locator('blockquote')).toHaveText('A quote.');
  // The code keeps its whitespace exactly, in a monospace font.
  expect(await bubble.locator('pre code').evaluate((code) => code.textContent)).toBe(CODE);
  await expect(bubble.locator('pre')).toHaveCSS('white-space', 'pre');
  expect(await bubble.locator('pre').evaluate((pre) => getComputedStyle(pre).fontFamily)).toMatch(/monospace/);
  const docs = bubble.getByRole('link', { name: 'the docs' });
  await expect(docs).toHaveAttribute('href', 'https://example.com/docs');
  await expect(docs).toHaveAttribute('target', '_blank');
  await expect(docs).toHaveAttribute('rel', 'noopener noreferrer nofollow');
  await expect(bubble.getByRole('link', { name: 'mailto:help@example.com' })).toHaveAttribute(
    'href',
    'mailto:help@example.com',
  );
  // The bubble keeps its maximum width (20rem) with a table and code in it.
  expect((await box(bubble)).width).toBeLessThanOrEqual(20 * 16 + 0.5);
});

test('the spec texts stay exactly those texts, without a Copy button', async ({ chat, fake }) => {
  await chat.markdownLoaded();
  fake.queue({ content: null }, { status: 500 });
  await chat.sendWithEnter('First');
  await chat.expectReadyAfterReply();
  await chat.sendWithEnter('Second');
  await chat.expectReadyAfterReply();
  await expect(chat.bubbles('bot')).toHaveText(['No response received', 'Error: Unable to get response']);
  await expect(chat.log.getByRole('button', { name: 'Copy reply' })).toHaveCount(0);
});

test('a long code line scrolls sideways inside the bubble on a 375 px phone', async ({ chat, fake, page }) => {
  await page.setViewportSize({ width: 375, height: 667 });
  await chat.markdownLoaded();
  const line = `const answer = [${Array.from({ length: 40 }, (_, i) => i * 1000).join(', ')}];`;
  fake.queue({ content: `Here:\n\n\`\`\`js\n${line}\n\`\`\`` });
  const bubble = await exchange(chat, 'A long line, please');
  const pre = bubble.locator('pre');
  expect(await pre.evaluate((element) => element.textContent)).toBe(line);

  const bubbleBox = await box(bubble);
  expect(bubbleBox.x + bubbleBox.width, 'the bubble stays on the screen').toBeLessThanOrEqual(375);
  expect(bubbleBox.width).toBeLessThanOrEqual(20 * 16 + 0.5);
  const { scrollWidth, clientWidth } = await pre.evaluate((element) => ({
    scrollWidth: element.scrollWidth,
    clientWidth: element.clientWidth,
  }));
  expect(scrollWidth, 'the line is wider than the code block').toBeGreaterThan(clientWidth + 100);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), 'the page does not scroll sideways').toBe(
    375,
  );
  // The code block is focusable, and scrolls with the arrow keys.
  await pre.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => pre.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
});

test.describe('Copy', () => {
  test.beforeEach(async ({ context, baseURL }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  });

  test('copies the reply source and the code by keyboard, says "Copied", and covers no text', async ({
    chat,
    fake,
    page,
    mode,
  }) => {
    await chat.markdownLoaded();
    fake.queue({ content: RICH_REPLY });
    const bubble = await exchange(chat, 'Rich, please');
    const copyReply = chat.log.getByRole('button', { name: 'Copy reply' });
    const copyCode = bubble.getByRole('button', { name: 'Copy code' });

    // From the box, Shift+Tab walks back through the reply's controls (the votes come with a reply token, which only
    // the proxy gives) to the Copy reply button; the conversation's are in the card's header, before the conversation.
    const votes = mode === 'proxy' ? ['Not helpful', 'Helpful'] : [];
    await chat.input.focus();
    for (const name of votes) {
      await page.keyboard.press('Shift+Tab');
      await expect(page.getByRole('button', { name, exact: true })).toBeFocused();
    }
    await page.keyboard.press('Shift+Tab');
    await expect(copyReply).toBeFocused();
    expect(await copyReply.evaluate((button) => getComputedStyle(button).outlineStyle), 'focus is visible').not.toBe(
      'none',
    );
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(RICH_REPLY);
    await expect(chat.log.getByRole('status').filter({ hasText: 'Copied' })).toHaveCount(1);

    await copyCode.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);

    // Never in the way of reading: neither button covers the text it copies.
    expect(overlap(await box(copyReply), await box(bubble))).toBe(false);
    expect(overlap(await box(copyCode), await box(bubble.locator('pre')))).toBe(false);
    // "Copied" goes away again.
    await expect(chat.log.getByRole('status').filter({ hasText: 'Copied' })).toHaveCount(0, { timeout: 4000 });
  });
});

test.describe('on a touch screen', () => {
  test.use({ hasTouch: true, isMobile: true, viewport: { width: 375, height: 667 } });

  test('the Copy button is visible without hovering, and tapping it copies', async ({
    chat,
    fake,
    page,
    context,
    baseURL,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
    await chat.markdownLoaded();
    fake.queue({ content: 'A **short** reply.' });
    await exchange(chat, 'Hi');
    const copyReply = chat.log.getByRole('button', { name: 'Copy reply' });
    await expect(copyReply).toBeVisible();
    expect(await copyReply.evaluate((button) => getComputedStyle(button).opacity)).toBe('1');
    await copyReply.tap();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('A **short** reply.');
  });
});

test('until the renderer has loaded, a reply shows as plain text; it is not part of the first paint', async ({
  page,
  fake,
}) => {
  const asked: number[] = [];
  const release = await holdRoute(page, /\/assets\/rich-reply-[\w-]+\.js$/, () => asked.push(Date.now()));
  const chat = new ChatPage(page);
  await chat.open();
  // The card works before the renderer arrives (it is fetched when idle or at the first send).
  fake.queue({ content: 'Some **bold** text' });
  await chat.sendWithEnter('Hello');
  await chat.expectReadyAfterReply();
  expect(asked.length, 'the renderer was asked for').toBeGreaterThan(0);
  await expect(chat.bubbles('bot')).toHaveText(['Some **bold** text']);
  release();
  await expect(chat.bubbles('bot').locator('strong')).toHaveText('bold');
  await expect(chat.bubbles('bot')).toHaveText(['Some bold text']);
  await expect(chat.log.getByRole('button', { name: 'Copy reply' })).toBeVisible();
  // The entry does not import it statically: the page's HTML preloads only the start-up chunks.
  const html = await (await page.request.get('/')).text();
  expect(html).not.toContain('rich-reply');
});

test('half-written Markdown streams in without raw markers; a link works only once its URL is complete', async ({
  chat,
  fake,
}) => {
  await chat.markdownLoaded();
  fake.respondWith({ openStream: true });
  await chat.sendWithEnter('Stream, please');
  await expect.poll(() => fake.streams.length).toBe(1);
  const [stream] = fake.streams;
  const bubble = chat.bubbles('bot').last();

  stream.piece('First paragraph, finished.\n\nHere is **bol');
  await expect(bubble.locator('strong')).toHaveText('bol');
  await expect(bubble).toHaveText('First paragraph, finished.Here is bol');
  // Mark the finished block's element: it must survive every later piece (not rendered or parsed again).
  await bubble
    .locator('p')
    .first()
    .evaluate((p) => {
      (p as HTMLElement & { marked?: boolean }).marked = true;
    });

  stream.piece('d** and [the docs](https://exa');
  await expect(bubble).toHaveText('First paragraph, finished.Here is bold and the docs');
  await expect(bubble.locator('a')).toHaveCount(0);

  stream.piece('mple.com/docs) now.\n\n```py\nprint(  "hi")');
  await expect(bubble.getByRole('link', { name: 'the docs' })).toHaveAttribute('href', 'https://example.com/docs');
  expect(await bubble.locator('pre code').evaluate((code) => code.textContent)).toBe('print(  "hi")');
  await expect(bubble).not.toContainText('```');

  stream.piece('\n```\n\nThen [a bad one](javascript:alert(1)) and `code');
  await expect(bubble.locator(':not(pre) > code')).toHaveText('code');
  await expect(bubble.locator('a')).toHaveCount(1);
  expect(
    await bubble
      .locator('p')
      .first()
      .evaluate((p) => (p as HTMLElement & { marked?: boolean }).marked),
  ).toBe(true);
  stream.piece('` spans.');
  stream.end();
  await chat.expectReadyAfterReply();
  await expect(chat.bubbles('bot').last()).toContainText('Then a bad one and code spans.');
});

test('a streamed reply never shows raw markers in any state it passes through', async ({ chat, fake, page }) => {
  await chat.markdownLoaded();
  const reply =
    'Some **bold** and *italic* text, `code`, ~~struck~~ and [a link](https://example.com).\n\n' +
    '| a | b |\n| - | - |\n| 1 | 2 |\n\n```js\nconst x = 1;\n```\n\nThe end.';
  // Three characters a piece: every marker is cut somewhere.
  const pieces = reply.match(/[\s\S]{1,3}/g) ?? [];
  // What the finished reply shows, and how much of it shows once each piece is in: a marker shows nothing while it is
  // half-written, a link's destination never shows, a table shows once its delimiter row does.
  const shows = 'Some bold and italic text, code, struck and a link.ab12jsconst x = 1;The end.';
  const shownAfter = [
    3, 4, 7, 9, 11, 13, 16, 19, 20, 24, 26, 29, 31, 32, 35, 38, 39, 42, 43, 47, 50, 50, 50, 50, 50, 50, 50, 50, 51, 51,
    51, 51, 51, 51, 53, 53, 54, 54, 55, 55, 56, 58, 61, 64, 66, 69, 69, 70, 72, 76, 77,
  ];
  expect(shownAfter).toHaveLength(pieces.length);
  // Every text the bubble passes through, including any the checks below would not stop to look at.
  await chat.log.evaluate((log) => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    new MutationObserver(() => {
      const bubbles = log.querySelectorAll('[data-sender="bot"]');
      seen.push(bubbles[bubbles.length - 1]?.textContent ?? '');
    }).observe(log, { childList: true, subtree: true, characterData: true });
  });
  fake.respondWith({ openStream: true });
  await chat.sendWithEnter('Markers?');
  await expect.poll(() => fake.streams.length).toBe(1);
  const [stream] = fake.streams;
  const bubble = chat.bubbles('bot').last();

  // One piece at a time, each shown before the next is written: every state of the stream is reached and checked.
  for (const [index, piece] of pieces.entries()) {
    stream.piece(piece);
    const expected = shows.slice(0, shownAfter[index]);
    await expect
      .poll(async () => (await bubble.textContent())?.trimEnd(), { message: `after ${JSON.stringify(piece)}` })
      .toBe(expected);
  }
  stream.end();
  await chat.expectReadyAfterReply();
  await expect(bubble).toHaveText(shows);
  const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
  const withMarkers = seen.filter((text) => /\*|`|~~|\[|\]|\||\(https/.test(text));
  expect(withMarkers).toEqual([]);
});

test('a reply with a javascript: link, an <img onerror> and a tracking image renders inert', async ({
  chat,
  fake,
  page,
}) => {
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await page.evaluate(() => {
    Object.assign(window, { trapCalls: 0, trap: () => Object.assign(window, { trapCalls: 1 }) });
  });
  await chat.markdownLoaded();
  const hostile =
    'Click [here](javascript:trap()) for a prize.\n\n<img src=x onerror="trap()">\n\n' +
    '![tracking pixel](https://tracker.example/pixel.gif?visitor=you)';
  fake.queue({ content: hostile });
  const bubble = await exchange(chat, 'Anything dangerous?');
  await page.waitForTimeout(200);

  await expect(bubble.locator('img, [onerror], [onclick]')).toHaveCount(0);
  await expect(bubble.getByRole('link')).toHaveCount(1);
  await expect(bubble.getByRole('link')).toHaveAttribute('href', 'https://tracker.example/pixel.gif?visitor=you');
  await expect(bubble).toContainText('Click here for a prize.');
  await expect(bubble).toContainText('<img src=x onerror="trap()">');
  await expect(bubble).toContainText('Image: tracking pixel');
  expect(await page.evaluate(() => (window as unknown as { trapCalls: number }).trapCalls)).toBe(0);
  expect(dialogs).toEqual([]);
  expect(chat.requests.filter((request) => request.url.includes('tracker.example'))).toEqual([]);
  // What the visitor sees: text and one plain link, no image.
  await expect(bubble).toHaveScreenshot('inert-reply.png');
});

test('replies nested 2,000 quotes and 800 lists deep leave the card working and the conversation going', async ({
  chat,
  fake,
}) => {
  await chat.markdownLoaded();
  fake.queue({ content: `${'>'.repeat(2000)} the deepest quote` });
  const quotes = await exchange(chat, 'Quote yourself');
  // Twenty levels as quotes; the rest of the markers as text.
  await expect(quotes.locator('blockquote')).toHaveCount(20);
  await expect(quotes.locator('blockquote').nth(19)).toHaveText(`${'>'.repeat(1980)} the deepest quote`);

  // Streamed word by word, as the provider does: every state of the growing list renders too.
  fake.queue({ content: `${'- '.repeat(800)}the deepest item` });
  const lists = await exchange(chat, 'List yourself');
  await expect(lists.locator('ul')).toHaveCount(20);
  await expect(lists.locator('ul').nth(19)).toHaveText(`${'- '.repeat(780)}the deepest item`);

  fake.queue({ content: 'Still **here**.' });
  const next = await exchange(chat, 'Still there?');
  await expect(next.locator('strong')).toHaveText('here');
  await expect(chat.bubbles('user')).toHaveText(['Quote yourself', 'List yourself', 'Still there?']);
  await expect(chat.log.getByRole('button', { name: 'Copy reply' })).toHaveCount(3);
  expect(chat.pageErrors).toEqual([]);
});

test('a link whose text reads as another host through invisible or look-alike characters is text; an honest one a link', async ({
  chat,
  fake,
}) => {
  await chat.markdownLoaded();
  const lookAlikes = [
    'ba\u200Bnk.example',
    '\u202Eelpmaxe.knab',
    'bank.example\u00AD',
    'bank\u3002example',
    'bank\uFF0Eexample',
  ];
  fake.queue({
    content: [
      ...lookAlikes.map((text, index) => `${index + 1}. [${text}](https://evil.example/)`),
      '',
      'The real one: [bank.example](https://bank.example/).',
    ].join('\n'),
  });
  const bubble = await exchange(chat, 'Where do I log in?');
  await expect(bubble.locator('ol > li')).toHaveText(
    // The override is not rendered: the text reads as it was written, backwards.
    lookAlikes.map((text) => `${text.replace('\u202E', '')} (https://evil.example/)`),
  );
  await expect(bubble.getByRole('link')).toHaveCount(1);
  await expect(bubble.getByRole('link', { name: 'bank.example' })).toHaveAttribute('href', 'https://bank.example/');
  // No bidirectional override reached the page to reorder what follows it.
  expect(await bubble.evaluate((element) => /[\u202A-\u202E\u2066-\u2069]/.test(element.textContent ?? ''))).toBe(
    false,
  );
});

test('axe finds no WCAG 2.1 A/AA violations in a conversation with rich replies', async ({ chat, fake, page }) => {
  await chat.markdownLoaded();
  fake.queue({ content: RICH_REPLY }, { content: 'A second reply with a [link](https://example.com) and `code`.' });
  await exchange(chat, 'Rich, please');
  await exchange(chat, 'Again');
  await expectNoAxeViolations(page, 'with rich replies');
  await page.setViewportSize({ width: 375, height: 667 });
  await expectNoAxeViolations(page, 'with rich replies at 375 px');
});
