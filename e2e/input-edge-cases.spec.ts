import type { CDPSession } from '@playwright/test';
import { FAKE_REPLY } from '../testing/fake-provider';
import { expect, expectedPayload, test } from './fixtures';

// What the box does with what is typed does not depend on how the page reaches the model: checked in proxy mode,
// except the long message, whose request crosses origins in direct mode.
const PROXY_ONLY = 'the box behaves alike in both modes: checked in proxy mode';

test.describe(() => {
  test.skip(({ mode }) => mode !== 'proxy', PROXY_ONLY);

  test('a whitespace-only message is not sent, by Enter or by the button', async ({ chat, fake, mode }) => {
    for (const blank of ['   ', '\t', ' \u00a0\u3000 ']) {
      await chat.sendWithEnter(blank);
      await chat.sendWithClick(blank);
    }
    await expect(chat.input).toBeEnabled();
    // The next real message is the first thing the provider and the visitor see: nothing blank went before it.
    await chat.sendWithEnter('Not blank');
    await chat.expectTranscript([
      { sender: 'user', text: 'Not blank' },
      { sender: 'bot', text: FAKE_REPLY },
    ]);
    expect(fake.requests.map((request) => request.body)).toEqual([expectedPayload('Not blank', mode)]);
  });
});

/** About 50 KB of UTF-8: many scripts, combining marks, emoji with skin tones and ZWJ sequences, no newlines. */
function mixedScripts(minBytes: number): string {
  const pieces = [
    'Hello, world! ',
    'Grüße aus Köln, naïve café ',
    'Привет, мир ',
    'Γειά σου κόσμε ',
    'مرحبا بالعالم ',
    'שלום עולם ',
    'नमस्ते दुनिया ',
    'สวัสดีชาวโลก ',
    '你好，世界 ',
    'こんにちは世界 ',
    '안녕하세요 세계 ',
    'e\u0301 a\u0308 ',
    '👋🏽 👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 🤖 ',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟘𝟙𝟚 ',
  ];
  let text = '';
  for (let i = 0; Buffer.byteLength(text) < minBytes; i++) text += pieces[i % pieces.length];
  return text.trimEnd();
}

test('a 50 KB message of mixed scripts and emoji is sent and shown intact, and so is such a reply', async ({
  chat,
  fake,
  mode,
}) => {
  // A reply of 20,000 characters, streamed a word at a time and shown as Markdown as it comes: with one core busy it
  // took more than expect's 5 s to be whole (a busy run on 2026-11-29). Nothing here is timed: it gets the time it takes.
  test.slow();
  const text = mixedScripts(50 * 1024);
  const reply = [...text].reverse().join('').slice(0, 20_000);
  fake.queue({ content: reply });

  await chat.sendWithEnter(text);

  await chat.expectTranscript(
    [
      { sender: 'user', text },
      { sender: 'bot', text: reply },
    ],
    40_000,
  );
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0].body).toEqual(expectedPayload(text, mode));
});

test.describe(() => {
  test.skip(({ mode }) => mode !== 'proxy', PROXY_ONLY);

  test('markup and script-looking text are shown as text and nothing runs', async ({ chat, fake, page, mode }) => {
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    const typed = [
      '<img src="x" onerror="window.__typed = 1; alert(1)"><script>window.__typed = 2</script>',
      '<a href="javascript:alert(1)">link</a> {{7*7}}',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: template syntax the page must show, not evaluate
      '${7*7} &lt;b&gt; <!-- note -->',
    ].join(' ');
    const replied =
      '<b>bold</b><svg onload="window.__replied = 1"></svg><iframe src="javascript:alert(2)"></iframe>' +
      '<style>body { display: none }</style> &amp;';
    fake.queue({ content: replied });

    await chat.sendWithEnter(typed);

    await chat.expectTranscript([
      { sender: 'user', text: typed },
      // A reply is Markdown: its HTML stays text, and its character references decode as CommonMark says.
      { sender: 'bot', text: replied.replace('&amp;', '&') },
    ]);
    // Give any handler that was wrongly created the time to fire, then check that none did.
    await page.waitForTimeout(200);
    // The card's own Copy button draws its icon in an svg; any other would have come from the reply.
    await expect(chat.log.locator('img, script, a, b, :not(button) > svg, iframe, style')).toHaveCount(0);
    await expect(chat.main).toBeVisible();
    expect(await page.evaluate(() => ['__typed', '__replied'].filter((key) => key in window))).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(fake.requests[0].body).toEqual(expectedPayload(typed, mode));
  });
});

/**
 * Presses Enter the way an input method does, as a trusted key event: `keyCode` 229 ("processed by the IME") with a
 * carriage return, which the browser would turn into a form submission if the page did not stop it.
 */
async function imeEnter(cdp: CDPSession) {
  const key = { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 229 };
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', text: '\r', ...key });
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key });
}

test.describe(() => {
  test.skip(({ mode }) => mode !== 'proxy', PROXY_ONLY);

  test('Enter during an IME composition does not send; Enter afterwards does', async ({ chat, fake, page, mode }) => {
    const cdp = await page.context().newCDPSession(page);
    await chat.input.focus();

    // Composing 日本語: the Enter that picks the characters is the IME's, not a send.
    await cdp.send('Input.imeSetComposition', { text: 'にほんご', selectionStart: 4, selectionEnd: 4 });
    await imeEnter(cdp);
    await page.keyboard.press('Enter');
    await cdp.send('Input.insertText', { text: '日本語' });
    // Some browsers send the confirming Enter just after the composition ends, still marked as the IME's.
    await imeEnter(cdp);
    await expect(chat.bubbles(), 'messages sent by the Enter of an IME').toHaveCount(0);
    await expect(chat.input).toBeEnabled();
    await expect(chat.input).toHaveValue('日本語');

    await page.keyboard.press('Enter');

    await chat.expectTranscript([
      { sender: 'user', text: '日本語' },
      { sender: 'bot', text: FAKE_REPLY },
    ]);
    expect(fake.requests.map((request) => request.body)).toEqual([expectedPayload('日本語', mode)]);
  });
});
