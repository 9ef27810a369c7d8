import type { Page } from '@playwright/test';
import type { EmbedApi } from '../embed/loader';
import { FAKE_REPLY } from '../testing/fake-provider';
import { type HostPageOptions, type HostSite, hostPageHtml } from '../testing/host-site';
import { expectNoAxeViolations } from './axe-check';
import { UPSTREAM_API_KEY } from './e2e-env';
import { callApi, chatFrame, launcher, messageBox, recordIdentify, resetProviderFixture } from './embed-site';
import { test as base, expect, holdRoute } from './fixtures';

// The snippet on a site of another origin, against the production build and server (proxy mode), in Chromium.

// `site` is a site the app's `FRAME_ANCESTORS` allows, `foreignSite` one it does not (e2e/fixtures.ts).
const test = base.extend<{ resetProvider: undefined }>({ resetProvider: [...resetProviderFixture] });

// The embed is a page of the proxy build (a direct build would put the token on every host page that opens it).
// Run in proxy mode only (e2e/playwright.config.ts): the embed is checked against the proxy build.

async function openHostPage(page: Page, site: HostSite, options: HostPageOptions, path = '/') {
  await page.goto(site.page(path, hostPageHtml(options)));
  await expect(launcher(page)).toBeVisible();
}

/** Opens the host page and the chat on it, as a visitor does: a click on the launcher, and the box has the focus. */
async function openChat(page: Page, site: HostSite, appOrigin: string) {
  await openHostPage(page, site, { appOrigin });
  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
}

/**
 * Opens the chat with the embedded card's chunk held back, so that the frame keeps its served card, and types `text`
 * into its box. The returned call lets the chunk through.
 */
async function typeBeforeTakeOver(page: Page, site: HostSite, appOrigin: string, text: string) {
  const release = await holdRoute(page, '**/assets/embedded-card-*.js');
  await openHostPage(page, site, { appOrigin });
  await launcher(page).click();
  await expect(messageBox(page)).toBeEditable();
  await messageBox(page).click();
  await page.keyboard.type(text);
  return release;
}

/** Where the page's keyboard focus is: in the chat's frame, on the page's own content, or on nothing. */
function focusedOnPage(page: Page) {
  return page.evaluate(() => {
    const active = document.activeElement;
    if (active?.localName === 'ai-assistant-embed') {
      return active.shadowRoot?.activeElement?.localName === 'iframe' ? 'chat' : 'launcher';
    }
    return active === document.body || active === null ? 'nothing' : `page: ${active.outerHTML.slice(0, 60)}`;
  });
}

/** Whether the host page's element named `name` is in the accessibility tree that a screen reader reads. */
async function inAccessibilityTree(page: Page, name: string) {
  const session = await page.context().newCDPSession(page);
  const { nodes } = (await session.send('Accessibility.getFullAXTree')) as {
    nodes: { ignored: boolean; name?: { value?: string } }[];
  };
  await session.detach();
  return nodes.some((node) => !node.ignored && node.name?.value === name);
}

test('a host page fetches nothing but the loader until the visitor shows intent, and nothing shifts', async ({
  page,
  site,
  embedApp,
}) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.addInitScript(() => {
    (window as unknown as { shifts: number }).shifts = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        (window as unknown as { shifts: number }).shifts += (entry as unknown as { value: number }).value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await openHostPage(page, site, { appOrigin: embedApp.origin });
  await page.getByRole('heading', { name: 'Garden tools' }).hover();
  await page.waitForLoadState('networkidle');
  expect(requested.filter((url) => !url.startsWith(site.origin))).toEqual([`${embedApp.origin}/embed.js`]);
  await expect(page.locator('iframe')).toHaveCount(0);

  // Pointing at the launcher is intent: the app loads in the hidden panel, so that a click finds it started.
  const frameRequest = page.waitForRequest(`${embedApp.origin}/?embed=${encodeURIComponent(site.origin)}`);
  await launcher(page).hover();
  await frameRequest;
  await expect(page.locator('iframe')).toBeHidden();
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
  expect(await page.evaluate(() => (window as unknown as { shifts: number }).shifts), 'layout shift').toBe(0);

  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
  expect(requested.filter((url) => url.includes('/?embed='))).toHaveLength(1);
});

test('keyboard only: open, chat through the proxy, Escape, reopen with the conversation, close button', async ({
  page,
  site,
  embedApp,
  provider,
}) => {
  await openHostPage(page, site, { appOrigin: embedApp.origin });
  const button = launcher(page);
  for (let presses = 0; presses < 6 && !(await button.evaluate((el) => el.matches(':focus'))); presses += 1) {
    await page.keyboard.press('Tab');
  }
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  // Focus is intent too: the app loads in the hidden panel.
  await expect(page.locator('iframe')).toHaveCount(1);
  await expect(page.locator('iframe')).toBeHidden();
  const ring = await button.evaluate((el) => {
    const style = getComputedStyle(el);
    return { style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
  });
  expect(ring, 'a visible focus ring').toEqual({ style: 'solid', width: 3 });
  const target = await button.boundingBox();
  expect(target?.width).toBeGreaterThanOrEqual(44);
  expect(target?.height).toBeGreaterThanOrEqual(44);

  await page.keyboard.press('Enter');
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  await expect(messageBox(page)).toBeFocused();

  const chatRequest = page.waitForRequest((request) => request.url().endsWith('/chat/completions'));
  await page.keyboard.type('Do you ship spades?');
  await page.keyboard.press('Enter');
  const log = chatFrame(page).getByRole('log', { name: 'Conversation' });
  await expect(log.locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);
  await expect(messageBox(page)).toBeFocused();

  // The frame asked its own origin's proxy, which added the token; no CORS was needed or offered.
  const request = await chatRequest;
  expect(request.url()).toBe(`${embedApp.origin}/api/llm/v1/chat/completions`);
  expect((await request.allHeaders())['sec-fetch-site']).toBe('same-origin');
  expect((await request.response())?.headers()['access-control-allow-origin']).toBeUndefined();
  expect(provider.requests).toHaveLength(1);
  expect(provider.requests[0].headers.authorization).toBe(`Bearer ${UPSTREAM_API_KEY}`);

  // Escape inside the frame closes the panel and gives the focus back to the launcher.
  await page.keyboard.press('Escape');
  await expect(page.locator('iframe')).toBeHidden();
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-expanded', 'false');

  // Reopened: the same conversation, the focus in the box.
  await page.keyboard.press('Enter');
  await expect(messageBox(page)).toBeFocused();
  await expect(log.locator('[data-sender]')).toHaveText(['Do you ship spades?', FAKE_REPLY]);

  // On a wide screen the panel sits beside the page, which stays in reach (not modal); Escape there closes it too.
  const delivery = page.getByRole('link', { name: 'Delivery terms' });
  await delivery.focus();
  await expect(delivery).toBeFocused();
  expect(await inAccessibilityTree(page, 'Delivery terms')).toBe(true);
  await page.keyboard.press('Escape');
  await expect(page.locator('iframe')).toBeHidden();
  await expect(button).toBeFocused();

  // So does the close button in the card's header.
  await page.keyboard.press('Enter');
  await expect(messageBox(page)).toBeFocused();
  // Backwards from the box: the reply's controls (its votes, its Copy button), the conversation, then the header's
  // from its end: the close button and the conversation's controls; forwards again to the close button.
  const walk = async (key: string, names: string[]) => {
    for (const name of names) {
      await page.keyboard.press(key);
      await expect(chatFrame(page).getByRole('button', { name, exact: true })).toBeFocused();
    }
  };
  await walk('Shift+Tab', ['Not helpful', 'Helpful', 'Copy reply']);
  await page.keyboard.press('Shift+Tab');
  await expect(log).toBeFocused();
  await walk('Shift+Tab', ['Close chat', 'Download conversation', 'New conversation']);
  await walk('Tab', ['Download conversation', 'Close chat']);
  await page.keyboard.press('Enter');
  await expect(page.locator('iframe')).toBeHidden();
  await expect(button).toBeFocused();
});

test('after replies nested 2,000 quotes and 800 lists deep, the frame keeps its card, its close button and the chat', async ({
  page,
  site,
  embedApp,
  provider,
}) => {
  await openChat(page, site, embedApp.origin);
  const log = chatFrame(page).getByRole('log', { name: 'Conversation' });
  provider.queue({ content: `${'>'.repeat(2000)} deep` }, { content: `${'- '.repeat(800)}deep` });
  for (const [index, message] of ['Quote yourself', 'List yourself'].entries()) {
    await page.keyboard.type(message);
    await page.keyboard.press('Enter');
    await expect(log.locator('[data-sender="bot"]').nth(index)).toContainText('deep');
    await expect(messageBox(page)).toBeEnabled();
  }
  await expect(log.locator('[data-sender="bot"]').first().locator('blockquote')).toHaveCount(20);

  await chatFrame(page).getByRole('button', { name: 'Close chat' }).click();
  await expect(page.locator('iframe')).toBeHidden();
  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
  await page.keyboard.type('Still there?');
  await page.keyboard.press('Enter');
  await expect(log.locator('[data-sender="bot"]')).toHaveCount(3);
  await expect(log.locator('[data-sender="bot"]').last()).toHaveText(FAKE_REPLY);
});

test('in the frame, Escape stops a pending reply and leaves the panel open; the next Escape closes it', async ({
  page,
  site,
  embedApp,
  provider,
}) => {
  await openChat(page, site, embedApp.origin);
  provider.respondWith({ hold: true });
  await page.keyboard.type('Do you ship rakes?');
  await page.keyboard.press('Enter');
  await expect.poll(() => provider.heldCount).toBe(1);

  await page.keyboard.press('Escape');
  await expect(chatFrame(page).getByText('Reply stopped', { exact: true })).toBeVisible();
  await expect(page.locator('iframe')).toBeVisible();
  await expect(messageBox(page)).toBeFocused();
  await expect.poll(() => provider.requests[0]?.aborted, { message: 'the provider saw the request end' }).toBe(true);

  await page.keyboard.press('Escape');
  await expect(page.locator('iframe')).toBeHidden();
  await expect(launcher(page)).toBeFocused();
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });

  test('the panel fills the screen, and the message box is large enough that iOS does not zoom', async ({
    page,
    site,
    embedApp,
  }) => {
    await openChat(page, site, embedApp.origin);

    expect(await page.locator('iframe').boundingBox()).toEqual({ x: 0, y: 0, width: 375, height: 667 });
    // The embedded layout: the card fills the frame.
    expect(await chatFrame(page).getByRole('main').boundingBox()).toEqual({ x: 0, y: 0, width: 375, height: 667 });
    await expect(chatFrame(page).getByRole('button', { name: 'Close chat' })).toBeInViewport();
    await expect(chatFrame(page).getByRole('button', { name: 'Send' })).toBeInViewport();
    const fontSize = await messageBox(page).evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
    expect(fontSize).toBeGreaterThanOrEqual(16);
  });

  test('the panel follows the visual viewport, so that an on-screen keyboard leaves the message box above it', async ({
    page,
    site,
    embedApp,
  }) => {
    await openChat(page, site, embedApp.origin);
    expect((await page.locator('iframe').boundingBox())?.height).toBe(667);

    // A keyboard of 300 px, as the browser reports one: the visual viewport shrinks and says so (headless Chromium
    // draws no keyboard, so its height is given here; what the loader does with it is what is tested).
    const keyboardUp = (height: number) =>
      page.evaluate((visible) => {
        Object.defineProperty(visualViewport, 'height', { configurable: true, get: () => visible });
        visualViewport?.dispatchEvent(new Event('resize'));
      }, height);
    await keyboardUp(367);
    await expect.poll(async () => (await page.locator('iframe').boundingBox())?.height).toBe(367);
    const box = await messageBox(page).boundingBox();
    expect((box?.y ?? 667) + (box?.height ?? 0)).toBeLessThanOrEqual(367);
    await expect(messageBox(page)).toBeFocused();

    await keyboardUp(667);
    await expect.poll(async () => (await page.locator('iframe').boundingBox())?.height).toBe(667);
  });

  test('the panel is modal: Tab and Shift+Tab stay in the chat, the page behind is out of reach, Escape leaves', async ({
    page,
    site,
    embedApp,
  }) => {
    await openHostPage(page, site, { appOrigin: embedApp.origin });
    expect(await inAccessibilityTree(page, 'Delivery terms'), 'the host link, before').toBe(true);
    await launcher(page).click();
    await expect(messageBox(page)).toBeFocused();
    await page.keyboard.type('Do you ship hoes?');
    await page.keyboard.press('Enter');
    await expect(chatFrame(page).locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);

    // Round the chat's controls both ways, twice over: the close control is on the way, and the focus never reaches
    // the page behind. Past the last control it leaves the page for the browser's own controls (here, with none,
    // nothing has the focus), as from any modal dialog, and comes back into the chat on the next press.
    const close = chatFrame(page).getByRole('button', { name: 'Close chat' });
    // A round is every control of the chat, and the one stop outside it: twice over, and one press more.
    const round =
      (await chatFrame(page).locator('button:not([disabled]), textarea, a[href], [tabindex="0"]').count()) + 1;
    for (const key of ['Tab', 'Shift+Tab']) {
      const stops: string[] = [];
      for (let presses = 1; presses <= 2 * round + 1; presses += 1) {
        await page.keyboard.press(key);
        const where = await focusedOnPage(page);
        const onClose = await close.evaluate((el) => el === document.activeElement);
        stops.push(onClose ? 'close' : where);
      }
      expect(
        stops.filter((stop) => stop !== 'chat' && stop !== 'close' && stop !== 'nothing'),
        key,
      ).toEqual([]);
      expect(stops.filter((stop) => stop === 'close').length, `${key}: ${stops}`).toBeGreaterThanOrEqual(2);
      expect(stops.join(), `${key}: never twice in a row out of the chat`).not.toContain('nothing,nothing');
    }
    // Nor do screen readers: the host page is out of the accessibility tree while the panel is open.
    expect(await inAccessibilityTree(page, 'Delivery terms'), 'the host link, panel open').toBe(false);

    await page.keyboard.press('Escape');
    await expect(page.locator('iframe')).toBeHidden();
    await expect(launcher(page)).toBeFocused();
    await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
    expect(await inAccessibilityTree(page, 'Delivery terms'), 'the host link, after').toBe(true);
  });

  test('data-open does not cover the whole site on load', async ({ page, site, embedApp }) => {
    // The loader has run once its launcher is there, and it would have opened the panel in the same task.
    await openHostPage(page, site, { appOrigin: embedApp.origin, data: { open: '' } }, '/open-on-phone');
    await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
    await expect(page.locator('iframe')).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Delivery terms' })).toBeInViewport();
  });
});

test('every keystroke typed into the frame while the app takes the card over is kept, and sent', async ({
  page,
  site,
  embedApp,
  provider,
}) => {
  const release = await typeBeforeTakeOver(page, site, embedApp.origin, 'Typed before');
  const box = messageBox(page);

  // Released while the visitor goes on typing: each key lands in the served box or, once the app's card is in, in
  // its box, which takes the focus and the text over in the same task.
  release();
  await page.keyboard.type(' and during the take-over');
  await expect(chatFrame(page).getByRole('button', { name: 'Close chat' })).toBeVisible();
  await expect(box).toBeFocused();
  await expect(box).toHaveValue('Typed before and during the take-over');
  await page.keyboard.press('Enter');
  await expect(chatFrame(page).locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);
  const body = provider.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
  expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Typed before and during the take-over' });
});

test('Enter pressed in the frame before the app has taken the card over sends the message once it has', async ({
  page,
  site,
  embedApp,
  provider,
}) => {
  const release = await typeBeforeTakeOver(page, site, embedApp.origin, 'Sent before the app');
  // The send is noted by the served card's own script (public/served-card.js), loaded at low priority: once it is in.
  const frame = page.frame({ url: (url) => url.origin === embedApp.origin });
  if (!frame) throw new Error("the chat's frame is not in the page");
  await frame.evaluate((path) => import(path), '/served-card.js');
  await page.keyboard.press('Enter');
  expect(provider.requests).toHaveLength(0);

  release();
  const log = chatFrame(page).getByRole('log', { name: 'Conversation' });
  await expect(log.locator('[data-sender]')).toHaveText(['Sent before the app', FAKE_REPLY]);
  await expect(messageBox(page)).toHaveValue('');
  expect(provider.requests).toHaveLength(1);
  const body = provider.requests[0].body as { messages: { role: string; content: string }[] };
  expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Sent before the app' });
});

test('hostile host CSS cannot hide or break the launcher', async ({ page, site, embedApp }) => {
  const css = `button, div, iframe, dialog { display: none !important; }
    * { font-size: 72px !important; line-height: 4 !important; color: red !important; background: yellow !important; }
    :root, ai-assistant-embed { --ai-accent: #b91c1c !important; }`;
  await openHostPage(page, site, { appOrigin: embedApp.origin, css }, '/hostile');
  // The site's own button obeys its CSS; ours does not.
  await expect(page.getByRole('button', { name: 'Add to basket' })).toBeHidden();
  const target = await launcher(page).boundingBox();
  expect(target).toMatchObject({ width: 56, height: 56 });
  // The accent comes from the site's own file only (none here: the spec's blue.600), never from the host page's CSS.
  await expect(launcher(page)).toHaveCSS('background-color', 'rgb(37, 99, 235)');

  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
  await page.keyboard.type('Still there?');
  await page.keyboard.press('Enter');
  await expect(chatFrame(page).locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);
});

test('a site the allow-list does not name gets no chat', async ({ page, foreignSite, embedApp, provider }) => {
  const console: string[] = [];
  page.on('console', (message) => console.push(message.text()));
  await openHostPage(page, foreignSite, { appOrigin: embedApp.origin });
  const framed = page.waitForResponse((response) => response.url().startsWith(`${embedApp.origin}/?embed=`));
  await launcher(page).click();

  const response = await framed;
  expect(response.headers()['content-security-policy']).not.toContain(foreignSite.origin);
  await expect.poll(() => console.some((line) => line.includes('frame-ancestors'))).toBe(true);
  await expect(chatFrame(page).locator('main')).toHaveCount(0);
  await expect(messageBox(page)).toHaveCount(0);
  expect(provider.requests).toHaveLength(0);
  // The server says so, naming the site and the setting to change.
  await expect
    .poll(() => embedApp.output.filter((line) => line.includes(`add ${foreignSite.origin} to FRAME_ANCESTORS`)))
    .toHaveLength(1);
});

test.describe("when the browser gives no currentScript, another vendor's /embed.js earlier on the page", () => {
  const vendor = (site: HostSite) => `<script src="${site.origin}/embed.js"></script>`;
  const framedOrigin = async (page: Page) => new URL((await page.locator('iframe').getAttribute('src')) ?? '').origin;

  /** As a tag manager would run the loader: its own text, so that neither currentScript nor the stack names a tag. */
  async function runLoaderText(page: Page, site: HostSite, foreignSite: HostSite, appOrigin: string, mark: string) {
    const tag = `<script type="text/plain" src="${appOrigin}/embed.js"${mark}></script>`;
    await page.goto(
      site.page('/tag-manager', hostPageHtml({ appOrigin, snippet: false, head: vendor(foreignSite) + tag })),
    );
    await page.evaluate(await (await fetch(`${appOrigin}/embed.js`)).text());
  }

  test('is passed over for the tag this file was loaded from', async ({ page, site, foreignSite, embedApp }) => {
    await page.addInitScript(() => Object.defineProperty(document, 'currentScript', { get: () => null }));
    await openHostPage(page, site, { appOrigin: embedApp.origin, head: vendor(foreignSite) });
    await launcher(page).click();
    expect(await framedOrigin(page)).toBe(embedApp.origin);
    await expect(messageBox(page)).toBeFocused();
  });

  test('is passed over for the tag marked data-ai-assistant', async ({ page, site, foreignSite, embedApp }) => {
    await runLoaderText(page, site, foreignSite, embedApp.origin, ' data-ai-assistant data-label="Ask the shop"');
    await page.getByRole('button', { name: 'Ask the shop' }).click();
    expect(await framedOrigin(page)).toBe(embedApp.origin);
    await expect(messageBox(page)).toBeFocused();
  });

  test('is never taken, even when no tag is ours', async ({ page, site, foreignSite, embedApp }) => {
    await runLoaderText(page, site, foreignSite, embedApp.origin, '');
    // The loader runs synchronously: had it taken a tag, its launcher and API would be there now.
    expect(await page.evaluate(() => 'AIAssistant' in window)).toBe(false);
    await expect(page.locator('ai-assistant-embed')).toHaveCount(0);
  });
});

test('data- attributes: side, label, open on load; the global API; forged messages are ignored', async ({
  page,
  site,
  embedApp,
}) => {
  await page.goto(
    site.page(
      '/options',
      hostPageHtml({ appOrigin: embedApp.origin, data: { position: 'left', label: 'Ask us', open: '' } }),
    ),
  );
  const button = page.getByRole('button', { name: 'Ask us' });
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  await expect(chatFrame(page).getByRole('textbox', { name: 'Message' })).toBeVisible();
  const box = await button.boundingBox();
  expect(box?.x, 'the launcher on the left').toBeLessThan(100);

  // A script on the page (or any other window) posting our message shape is not the frame: nothing happens.
  await page.evaluate(() => window.postMessage({ ns: 'ai-assistant', v: 1, type: 'close' }, '*'));
  await page.waitForTimeout(300);
  await expect(page.locator('iframe')).toBeVisible();

  await callApi(page, 'close');
  await expect(page.locator('iframe')).toBeHidden();
  await callApi(page, 'toggle');
  await expect(page.locator('iframe')).toBeVisible();
  await callApi(page, 'toggle');
  await expect(page.locator('iframe')).toBeHidden();
  await callApi(page, 'open');
  await expect(page.locator('iframe')).toBeVisible();
});

test("identify(): the site's token reaches the chat's frame, given before the frame was there, and nowhere else", async ({
  page,
  site,
  embedApp,
}) => {
  // Obviously fake tokens, JWT-shaped.
  const before = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiZWZvcmUifQ.fake-before';
  const after = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZnRlciJ9.fake-after';
  const heard = await recordIdentify(page, embedApp.origin);
  const identify = (token: string | null) =>
    page.evaluate((value) => (window as unknown as { AIAssistant: EmbedApi }).AIAssistant.identify(value), token);
  await openHostPage(page, site, { appOrigin: embedApp.origin });
  await expect(page.locator('iframe')).toHaveCount(0);

  await identify(before);
  await launcher(page).click();
  await expect(messageBox(page)).toBeFocused();
  await expect.poll(heard).toEqual([[site.origin, before]]);

  await identify(after);
  await identify(null);
  await expect.poll(heard).toEqual([
    [site.origin, before],
    [site.origin, after],
    [site.origin, null],
  ]);
  // Never in an address, in storage or in the page.
  await identify(after);
  await expect.poll(async () => (await heard()).length).toBe(4);
  const everywhere = await page.evaluate(
    () =>
      `${document.documentElement.outerHTML}${document.querySelector('ai-assistant-embed')?.shadowRoot?.innerHTML}${JSON.stringify(sessionStorage)}${JSON.stringify(localStorage)}${location.href}${document.cookie}`,
  );
  const framed = await messageBox(page).evaluate(
    () =>
      `${document.documentElement.outerHTML}${JSON.stringify(sessionStorage)}${JSON.stringify(localStorage)}${location.href}${document.cookie}`,
  );
  for (const text of [everywhere, framed]) {
    expect(text).not.toContain(before);
    expect(text).not.toContain(after);
  }
});

test('offsets outside 0 to 400 px, or not numbers, are the default 20 px; 0 and 400 are taken', async ({
  page,
  site,
  embedApp,
}) => {
  const { width, height } = page.viewportSize() ?? { width: 0, height: 0 };
  const placed = async (bottom: string, side: string) => {
    await openHostPage(
      page,
      site,
      { appOrigin: embedApp.origin, data: { 'offset-bottom': bottom, 'offset-side': side } },
      `/offsets-${bottom}-${side}`,
    );
    const box = await launcher(page).boundingBox();
    if (!box) throw new Error('the launcher is not laid out');
    return { bottom: height - (box.y + box.height), side: width - (box.x + box.width) };
  };
  expect(await placed('500', '-5')).toEqual({ bottom: 20, side: 20 });
  expect(await placed('12px', 'none')).toEqual({ bottom: 20, side: 20 });
  expect(await placed('0', '400')).toEqual({ bottom: 0, side: 400 });
});

for (const scheme of ['light', 'dark'] as const) {
  test(`axe finds nothing on the host page, panel closed and open, ${scheme}`, async ({ page, site, embedApp }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await openHostPage(page, site, { appOrigin: embedApp.origin });
    await expectNoAxeViolations(page, 'with the panel closed');

    await launcher(page).click();
    await expect(messageBox(page)).toBeFocused();
    await page.keyboard.type('Hello');
    await page.keyboard.press('Enter');
    await expect(chatFrame(page).locator('[data-sender="bot"]')).toHaveText(FAKE_REPLY);
    const dark = await chatFrame(page)
      .locator('html')
      .evaluate((html) => html.classList.contains('dark'));
    expect(dark, 'the app follows the colour scheme').toBe(scheme === 'dark');
    await expectNoAxeViolations(page, 'with the panel open');
  });
}

for (const [theme, system] of [
  ['dark', 'light'],
  ['light', 'dark'],
] as const) {
  test(`data-theme="${theme}" overrides a ${system} system; bubbles stay blue and grey`, async ({
    page,
    site,
    embedApp,
  }) => {
    await page.emulateMedia({ colorScheme: system });
    await openHostPage(page, site, { appOrigin: embedApp.origin, data: { theme } });
    await launcher(page).click();
    await expect(messageBox(page)).toBeFocused();
    await page.keyboard.type('Hello');
    await page.keyboard.press('Enter');
    const bot = chatFrame(page).locator('[data-sender="bot"]');
    await expect(bot).toHaveText(FAKE_REPLY);
    const dark = await chatFrame(page)
      .locator('html')
      .evaluate((html) => html.classList.contains('dark'));
    expect(dark).toBe(theme === 'dark');
    // blue.700 and gray.800 in dark mode, blue.600 and gray.100 in light mode.
    const [user, grey] =
      theme === 'dark' ? ['rgb(33, 88, 209)', 'rgb(39, 39, 42)'] : ['rgb(37, 99, 235)', 'rgb(244, 244, 245)'];
    await expect(chatFrame(page).locator('[data-sender="user"]')).toHaveCSS('background-color', user);
    await expect(bot).toHaveCSS('background-color', grey);
    await expectNoAxeViolations(page, `with data-theme="${theme}" on a ${system} system`);
  });
}
