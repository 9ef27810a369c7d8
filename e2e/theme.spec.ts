import { fileURLToPath } from 'node:url';
import type { FrameLocator, Locator, Page } from '@playwright/test';
import { readAccent } from '../server/pages/accent';
import { DEFAULT_DARK_ACCENT } from '../src/theme';
import { hostPageHtml } from '../testing/host-site';
import { startAppServer } from './app-server';
import { expectNoAxeViolations } from './axe-check';
import { contrast, expect, SERVER_START, test } from './fixtures';

// The theme (src/theme.ts) in both colour schemes, on a Markdown reply that shows everything a reply can: AA contrast
// on the page and in the embed's frame, at a desktop and a phone width. The look does not depend on how the page
// reaches the model: checked in proxy mode only.

const RICH_REPLY = [
  'Read [the docs](https://example.com/docs), then run `npm ci` and `npm test`.',
  '- first\n- second with `code`\n  - nested',
  '1. one\n2. two',
  '> A quote with a [link](https://example.com/quote) and `code`.',
  '| Name | Size |\n| :--- | ---: |\n| react-markdown | 50 KB |\n| `micromark` | 22 KB |',
  '```ts\nconst answer = 42;\n```',
  '---',
  'The end.',
].join('\n\n');

const SCHEMES = ['light', 'dark'] as const;
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 375, height: 667 },
] as const;
const FRAME_TITLE = 'AI Assistant chat';

// Run in proxy mode only (e2e/playwright.config.ts): the look is checked in proxy mode only.

/**
 * Sends a message in `root` (the page or the frame) and waits until the reply is in, rendered as Markdown, and the
 * card is ready again: nothing is pending while axe runs. Returns the reply's bubble.
 */
async function richReply(root: Page | FrameLocator) {
  const input = root.getByRole('textbox', { name: 'Message' });
  await expect(input).toBeEditable();
  await input.fill('Show me everything');
  await input.press('Enter');
  const bubble: Locator = root.locator('[data-sender="bot"]');
  // The Markdown renderer loads lazily: until it has, a reply shows as plain text.
  await expect(bubble.locator('pre code')).toHaveText('const answer = 42;');
  await expect(bubble.locator('blockquote a')).toBeVisible();
  await expect(bubble.locator('table td code')).toHaveText('micromark');
  await expect(input).toBeEditable();
  await expect(input).toHaveAttribute('placeholder', 'Your message here');
  // Send hovered, the state in which its text is hardest to read.
  await root.getByRole('button', { name: 'Send' }).hover();
  return bubble;
}

async function expectScheme(html: Locator, scheme: (typeof SCHEMES)[number]) {
  await expect
    .poll(() => html.evaluate((element) => element.classList.contains('dark')), { message: 'the dark class' })
    .toBe(scheme === 'dark');
}

for (const scheme of SCHEMES) {
  for (const viewport of WIDTHS) {
    test(`a rich Markdown reply passes axe on the page, ${scheme}, ${viewport.width} px`, async ({
      page,
      fake,
      baseURL,
    }) => {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: scheme });
      fake.queue({ content: RICH_REPLY });
      await page.goto(baseURL ?? '/');
      await expectScheme(page.locator('html'), scheme);
      await richReply(page);
      await expectNoAxeViolations(page, `on a rich reply, ${scheme}, ${viewport.width} px`);
    });

    test(`a rich Markdown reply passes axe in the embed's frame, ${scheme}, ${viewport.width} px`, async ({
      page,
      fake,
      site,
      embedApp,
    }) => {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: scheme });
      fake.queue({ content: RICH_REPLY });
      await page.goto(site.page('/', hostPageHtml({ appOrigin: embedApp.origin })));
      await page.getByRole('button', { name: 'Chat with AI Assistant' }).click();
      const frame = page.frameLocator(`iframe[title="${FRAME_TITLE}"]`);
      // The card served in the frame is replaced by the app's embedded card, which takes the focus once it is ready:
      // typed before that, Enter would reach a form that no script handles yet.
      await expect(frame.getByRole('textbox', { name: 'Message' })).toBeFocused();
      await expectScheme(frame.locator('html'), scheme);
      await richReply(frame);
      // axe checks the frame's content from the host page, as a visitor's assistive technology meets it.
      await expectNoAxeViolations(page, `in the frame on a rich reply, ${scheme}, ${viewport.width} px`);
    });
  }
}

test('the user bubble and Send read --ai-accent at run time, in both schemes', async ({ page, fake, baseURL }) => {
  const brand = 'rgb(0, 94, 56)';
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    fake.queue({ content: 'Branded.' });
    await page.goto(baseURL ?? '/');
    await expectScheme(page.locator('html'), scheme);
    const send = page.getByRole('button', { name: 'Send' });
    await expect(send).toBeEnabled();
    const unbranded = await send.evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(unbranded).not.toBe(brand);
    await page.addStyleTag({ content: `:root { --ai-accent: ${brand}; }` });
    await expect(send).toHaveCSS('background-color', brand);
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello');
    await send.click();
    await expect(page.locator('[data-sender="bot"]')).toHaveText('Branded.');
    // The reply has ended and the card is ready again: Send is no longer the disabled one of a pending reply.
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeEditable();
    await expect(page.locator('[data-sender="user"]')).toHaveCSS('background-color', brand);
    await expectNoAxeViolations(page, `with a branded accent, ${scheme}`);
  }
});

test("the launcher follows data-theme, and not the host page's --ai-accent", async ({ page, site, embedApp }) => {
  const brand = 'rgb(0, 94, 56)';
  const launcherBackground = async (data: Record<string, string>, css = '') => {
    await page.goto(site.page('/', hostPageHtml({ appOrigin: embedApp.origin, data, css })));
    const launcher = page.getByRole('button', { name: 'Chat with AI Assistant' });
    await expect(launcher).toBeVisible();
    return launcher.evaluate((element) => getComputedStyle(element).backgroundColor);
  };
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await launcherBackground({});
  const forcedDark = await launcherBackground({ theme: 'dark' });
  expect(forcedDark, 'the dark accent differs from the light one').not.toBe(light);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await launcherBackground({}), 'a dark system gives the dark accent').toBe(forcedDark);
  expect(await launcherBackground({ theme: 'light' }), 'data-theme="light" wins over the system').toBe(light);
  // Its accent is the site's own (assistant.config.yaml, baked into the loader by the server), never the host page's.
  expect(await launcherBackground({}, `:root { --ai-accent: ${brand}; }`)).toBe(forcedDark);
});

const ACCENT_CONFIG = fileURLToPath(new URL('./dark-accent.yaml', import.meta.url));
const accentTest = test.extend<{ accentApp: { url: string } }>({
  accentApp: [
    async ({ provider, servers }, use) => {
      const start = () => startAppServer('proxy', provider.baseURL, { ASSISTANT_CONFIG: ACCENT_CONFIG });
      await use(await servers.once('dark accent app', start));
    },
    SERVER_START,
  ],
});

/** The colours of Send, the message box's focus ring and what both are drawn on, as computed on the page. */
async function accentControls(page: Page, scheme: (typeof SCHEMES)[number]) {
  const input = page.getByRole('textbox', { name: 'Message' });
  await expect(input).toBeEditable();
  await input.fill('Hello');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(input).toBeFocused();
  const send = page.getByRole('button', { name: 'Send' });
  // What Send and the box are drawn on: their nearest painted ancestor (the card), else the page's canvas.
  const background = await send.evaluate(
    (element, canvas) => {
      for (let parent = element.parentElement; parent; parent = parent.parentElement) {
        const color = getComputedStyle(parent).backgroundColor;
        if (!/^rgba\(.*, 0\)$/.test(color) && color !== 'transparent') return color;
      }
      return canvas;
    },
    scheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(0, 0, 0)',
  );
  return {
    background,
    ring: await input.evaluate((element) => getComputedStyle(element).outlineColor),
    send: await send.evaluate((element) => getComputedStyle(element).backgroundColor),
  };
}

for (const scheme of SCHEMES) {
  test(`with the default colours, Send and the focus ring keep 3:1 against the page, ${scheme}`, async ({
    page,
    baseURL,
  }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(baseURL ?? '/');
    await expectScheme(page.locator('html'), scheme);
    const { background, ring, send } = await accentControls(page, scheme);
    // The light scheme is the spec's blue (blue.600); the dark one the shade a site with that accent gets.
    expect(send).toBe(hexToRgb(scheme === 'light' ? '#2563eb' : DEFAULT_DARK_ACCENT));
    expect(contrast(ring, background), `ring ${ring} on ${background}`).toBeGreaterThanOrEqual(3);
    expect(contrast(send, background), `Send ${send} on ${background}`).toBeGreaterThanOrEqual(3);
  });
}

for (const scheme of SCHEMES) {
  accentTest(
    `with a dark accent, Send and the focus ring keep 3:1 against the page, ${scheme}`,
    async ({ page, accentApp }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(accentApp.url);
      await expectScheme(page.locator('html'), scheme);
      const { background, ring, send } = await accentControls(page, scheme);
      // The ring wears the accent: the accent itself in the light scheme, a lighter shade of it in the dark.
      const shades = readAccent('#1e1b4b');
      if (!shades.ok) throw new Error(shades.reason);
      expect(ring).toBe(hexToRgb(scheme === 'light' ? shades.shades.light : shades.shades.darkRing));
      expect(contrast(ring, background), `ring ${ring} on ${background}`).toBeGreaterThanOrEqual(3);
      expect(contrast(send, background), `Send ${send} on ${background}`).toBeGreaterThanOrEqual(3);
    },
  );
}

/** `#rrggbb` as computed styles give it. */
function hexToRgb(hex: string): string {
  const [red, green, blue] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${red}, ${green}, ${blue})`;
}
