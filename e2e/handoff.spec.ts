import type { Page } from '@playwright/test';
import { HANDOFF_PATH } from '../contract/handoff';
import type { EmbedApi, EmbedEvents } from '../embed/loader';
import type { FakeProvider } from '../testing/fake-provider';
import { type HostSite, hostPageHtml } from '../testing/host-site';
import { type SmtpServer, smtpServer } from '../testing/smtp-server';
import { startReturnsSite } from './app-server';
import { expectNoAxeViolations } from './axe-check';
import { appTookOver, chatFrame, launcher } from './embed-site';
import { test as base, box, type ChatPage, expect, SERVER_START } from './fixtures';

// "Contact a person" (issue 48) against the production build and server (proxy mode: a direct-mode page has no server
// to send to), with a site whose `handoff:` goes by email to a real SMTP server (aiosmtpd) on loopback.

const VISITOR = 'visitor@example.com';
const QUESTION = 'Can I return a rake bought last week? private-marker-7f3a';
const MESSAGE = 'Please call me about my rake, it arrived broken.';

interface HandoffApp {
  url: string;
  output: string[];
  smtp: SmtpServer;
}

/** The server (and its SMTP server) with HANDOFF_MIN_SECONDS `minSeconds`, told that `site` may embed it. */
async function startHandoffApp(provider: FakeProvider, site: HostSite, minSeconds: string) {
  const smtp = await smtpServer();
  const server = await startReturnsSite(
    provider.baseURL,
    'handoff:\n  email: help@shop.example\n  reply_within: one working day\n' +
      'knowledge:\n  - path: ./docs\n    url: https://shop.example/\n',
    {
      SMTP_URL: smtp.url,
      HANDOFF_FROM: 'assistant@shop.example',
      HANDOFF_MIN_SECONDS: minSeconds,
      FRAME_ANCESTORS: site.origin,
    },
  );
  const close = async () => {
    await server.close();
    await smtp.remove();
  };
  return { url: server.url, output: server.output, smtp, close };
}

const test = base.extend<{
  /** The server's HANDOFF_MIN_SECONDS: 0 where a form is sent, far longer than any test where it must be too soon. */
  minSeconds: string;
  handoffApp: HandoffApp;
}>({
  minSeconds: ['0', { option: true }],
  // One server per HANDOFF_MIN_SECONDS the worker's tests ask for, started when first asked.
  handoffApp: [
    async ({ provider, site, minSeconds, servers }, use) =>
      use(await servers.once(`handoff app ${minSeconds}`, () => startHandoffApp(provider, site, minSeconds))),
    SERVER_START,
  ],
  baseURL: async ({ handoffApp }, use) => {
    await use(handoffApp.url);
  },
});

// Run in proxy mode only (e2e/playwright.config.ts): the form goes to the page’s own server.

/** A reply, then Not helpful, then the person under it: the form open, its token given, focus in its first field. */
async function openFormAfterNotHelpful({ chat, fake, page }: { chat: ChatPage; fake: FakeProvider; page: Page }) {
  fake.respondWith({ content: 'Yes, within thirty days [1].' });
  await chat.markdownLoaded();
  await chat.sendWithEnter(QUESTION);
  await chat.expectReadyAfterReply();
  const person = page.getByRole('button', { name: 'Contact a person' });
  // In the card's actions from the first reply; under the reply only once it is Not helpful.
  await expect(person).toHaveCount(1);
  await page.getByRole('button', { name: 'Not helpful' }).click();
  await expect(person).toHaveCount(2);
  // No Contact us link: the site has no `contact:`, and the person takes its place.
  await expect(page.getByRole('link', { name: 'Contact us' })).toHaveCount(0);

  const tokenGiven = page.waitForResponse((response) => response.url().endsWith(HANDOFF_PATH));
  await person.last().click();
  const form = page.getByRole('form');
  await expect(form).toBeVisible();
  expect((await tokenGiven).status()).toBe(200);
  const email = form.getByLabel('Your email');
  const message = form.getByLabel('Your message');
  await expect(email).toBeFocused();
  await expect(form.getByLabel('Include this conversation (2 messages)')).toBeChecked();
  return { person, form, email, message };
}

test.describe('sent sooner than the server takes a form (HANDOFF_MIN_SECONDS far away)', () => {
  test.use({ minSeconds: '600' });

  test('refused as too soon: the sentence, the text kept, focus on the message', async ({ chat, fake, page }) => {
    const { form, email, message } = await openFormAfterNotHelpful({ chat, fake, page });
    await email.fill(VISITOR);
    await message.fill(MESSAGE);
    const refused = page.waitForResponse(
      (response) => response.url().endsWith(HANDOFF_PATH) && response.request().method() === 'POST',
    );
    await form.getByRole('button', { name: 'Send' }).click();
    const refusal = await refused;
    expect(refusal.status()).toBe(400);
    expect((await refusal.json()).error.code).toBe('too_soon');
    await expect(form.getByRole('alert')).toHaveText('That was very quick: please wait a moment and send it again.');
    await expect(message).toHaveValue(MESSAGE);
    await expect(email).toHaveValue(VISITOR);
    await expect(message).toBeFocused();
  });
});

test('after Not helpful, a person: the form in the card, Sent from the keyboard, and the mail with the conversation', async ({
  chat,
  fake,
  page,
  handoffApp,
}) => {
  const { person, form, email, message } = await openFormAfterNotHelpful({ chat, fake, page });
  await expectNoAxeViolations(page, 'the form open');
  await email.fill(VISITOR);
  await message.fill(MESSAGE);
  await message.focus();

  const sent = page.waitForResponse(
    (response) => response.url().endsWith(HANDOFF_PATH) && response.request().method() === 'POST',
  );
  // From the keyboard: the message box is multi-line, so Tab on past the checkbox and Cancel to Send, and press it.
  await page.keyboard.press('Tab');
  await expect(form.getByRole('checkbox')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(form.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(form.getByRole('button', { name: 'Send' })).toBeFocused();
  await page.keyboard.press('Enter');
  expect((await sent).status()).toBe(202);
  await expect(form).toHaveCount(0);
  await expect(page.getByText(`Sent. We will reply to ${VISITOR} by email within one working day.`)).toBeVisible();
  await expect(person).toHaveCount(0);
  await expect(chat.input).toBeFocused();
  await expectNoAxeViolations(page, 'after Sent');

  // Delivered by the outbox to the SMTP server: the message, the visitor's address to reply to, and the conversation.
  const mailsOf = async () => (await handoffApp.smtp.mails()).filter((mail) => mail.text.includes(MESSAGE));
  await expect.poll(async () => (await mailsOf()).length, { timeout: 30_000 }).toBe(1);
  const [mail] = await mailsOf();
  expect(mail.to).toEqual(['help@shop.example']);
  expect(mail.text).toMatch(new RegExp(`^Reply-To: ${VISITOR}`, 'mi'));
  expect(mail.text).toContain(MESSAGE);
  expect(mail.text).toContain(VISITOR);
  expect(mail.text).toContain('private-marker-7f3a');
  // The server's log names no address, no message and no password.
  const log = handoffApp.output.join('\n');
  expect(log).toContain('[handoff] POST /api/handoff 202 queued');
  for (const secret of [VISITOR, 'private-marker-7f3a', 'arrived broken', handoffApp.smtp.password]) {
    expect(log).not.toContain(secret);
  }
});

/** The host page's events as it heard them, with whether each had a `detail`. */
async function listen(page: Page) {
  await page.evaluate(() => {
    const api = (window as unknown as { AIAssistant: EmbedApi & EmbedEvents }).AIAssistant;
    const heard: string[] = [];
    (window as unknown as { heard: string[] }).heard = heard;
    for (const name of ['message', 'handoff'] as const) {
      api.on(name, (event) =>
        heard.push(`${event.type}${(event as CustomEvent).detail != null ? ' with detail' : ''}`),
      );
    }
  });
  return () => page.evaluate(() => (window as unknown as { heard: string[] }).heard);
}

test.describe('in the embed, on a phone', () => {
  test.use({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });

  test('the form fits the panel, is sent from it, and the host page hears handoff with nothing of the message', async ({
    page,
    fake,
    site,
    handoffApp,
  }) => {
    fake.respondWith({ content: 'Yes, within thirty days [1].' });
    await page.goto(site.page('/', hostPageHtml({ appOrigin: new URL(handoffApp.url).origin })));
    await expect(launcher(page)).toBeVisible();
    const heard = await listen(page);
    await launcher(page).click();
    const frame = chatFrame(page);
    const input = frame.getByRole('textbox', { name: 'Message' });
    await appTookOver(page);
    await input.fill(QUESTION);
    await input.press('Enter');
    await expect(frame.locator('[data-sender="bot"]').last()).toContainText('within thirty days');
    // In the card's actions, beside New conversation.
    await frame.getByRole('button', { name: 'Contact a person' }).click();
    const form = frame.getByRole('form');
    await expect(form.getByLabel('Your email')).toBeFocused();
    // Inside the phone's screen, every field and Send whole.
    for (const part of [
      form.getByLabel('Your email'),
      form.getByLabel('Your message'),
      form.getByRole('button', { name: 'Send' }),
    ]) {
      const { x, y, width, height } = await box(part);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(x + width).toBeLessThanOrEqual(375);
      expect(y + height).toBeLessThanOrEqual(667);
    }
    await form.getByLabel('Your email').fill(VISITOR);
    await form.getByLabel('Your message').fill('From my phone: is the rake in stock again?');
    await form.getByRole('button', { name: 'Send' }).tap();
    await expect(frame.getByText(`Sent. We will reply to ${VISITOR} by email within one working day.`)).toBeVisible();
    await expect.poll(heard).toEqual(['message', 'handoff']);
  });
});
