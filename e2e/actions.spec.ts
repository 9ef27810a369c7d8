import type { Locator, Page } from '@playwright/test';
import { SignJWT } from 'jose';
import { ACTIONS_CONFIRM_PATH } from '../contract/actions';
import type { EmbedApi } from '../embed/loader';
import type { FakeProvider } from '../testing/fake-provider';
import { type HostSite, hostPageHtml } from '../testing/host-site';
import { type OwnerApi, startOwnerApi } from '../testing/owner-api';
import { allowServerStart, startReturnsSite } from './app-server';
import { expectNoAxeViolations } from './axe-check';
import { appTookOver, chatFrame, launcher, messageBox } from './embed-site';
import { test as base, type Closable, expect, SERVER_START } from './fixtures';

// The site's actions (issue 49) against the production build and server (proxy mode: a direct-mode build refuses
// `actions:`), with the owner's API a real HTTP server on loopback that records every call, and the fake provider
// scripting the model's tool calls. The host page's visitor token comes through the embed's `AIAssistant.identify()`.

const IDENTITY_SECRET = 'identity-secret-for-tests-only-not-real-0123456789';
const ORDER = '123456';
const PHONE = '+44 1234 567890';
const CONFIRM_TEXT = `Ask the shop to call ${PHONE} in the morning?`;

const siteConfig = (owner: string) => `actions:
  - name: order_status
    description: Look up the status of one of the visitor's orders by its number
    method: GET
    url: ${owner}/orders/{order_number}
    input:
      order_number: { type: string, pattern: "^[0-9]{6}$", description: The six-digit order number }
    identity: required
    show: "Order {order_number}: {status}"
  - name: request_callback
    description: Ask the shop to call the visitor back
    method: POST
    url: ${owner}/callbacks
    input:
      phone: { type: string, pattern: "^\\\\+?[0-9 ]{6,20}$" }
      when: { type: string, enum: [morning, afternoon] }
    confirm: "Ask the shop to call {phone} in the {when}?"
    per_visitor_per_day: 3
`;

interface ActionsApp {
  url: string;
  origin: string;
  owner: OwnerApi;
}

/** The owner's API and the server that calls it, told that `site` may embed it. */
async function startActionsApp(provider: FakeProvider, site: HostSite): Promise<ActionsApp & Closable> {
  const owner = await startOwnerApi({
    orders: (_call, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: 'shipped' })),
  });
  const server = await startReturnsSite(provider.baseURL, siteConfig(owner.url), {
    IDENTITY_SECRET,
    ACTIONS_SECRET: 'actions-secret-for-tests-only-not-real',
    FRAME_ANCESTORS: site.origin,
  });
  const close = async () => {
    await server.close();
    await owner.close();
  };
  return { url: server.url, origin: new URL(server.url).origin, owner, close };
}

const test = base.extend<{ actionsServer: ActionsApp; actionsApp: ActionsApp }>({
  actionsServer: [
    async ({ provider, site, servers }, use) =>
      use(await servers.once('actions app', () => startActionsApp(provider, site))),
    SERVER_START,
  ],
  actionsApp: async ({ actionsServer }, use) => {
    actionsServer.owner.calls.length = 0;
    await use(actionsServer);
  },
  baseURL: async ({ actionsServer }, use) => {
    await use(actionsServer.url);
  },
});

// Run in proxy mode only (e2e/playwright.config.ts): actions run on the page’s own server.

/** A visitor token as the site's backend signs it (HS256 under IDENTITY_SECRET). */
const visitorToken = (sub: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(IDENTITY_SECRET));

/** The host page with the snippet, the chat opened, and the app in charge of the frame. */
async function openEmbed(page: Page, site: HostSite, app: ActionsApp, token?: string) {
  await page.goto(site.page('/', hostPageHtml({ appOrigin: app.origin })));
  if (token) {
    // Before the frame exists: the loader keeps it and gives it to the frame once it is ready.
    await page.evaluate((jwt) => (window as unknown as { AIAssistant: EmbedApi }).AIAssistant.identify(jwt), token);
  }
  await launcher(page).click();
  await appTookOver(page);
}

const toolNames = (body: unknown) =>
  ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);

test('an order lookup with the host page’s visitor token answers from the API’s JSON', async ({
  page,
  site,
  actionsApp,
  fake,
}) => {
  allowServerStart();
  const token = await visitorToken('visitor-42');
  fake.queue(
    { toolCall: { name: 'order_status', arguments: JSON.stringify({ order_number: ORDER }) } },
    { content: `Your order ${ORDER} has shipped.` },
  );
  await openEmbed(page, site, actionsApp, token);
  await messageBox(page).fill(`Where is my order ${ORDER}?`);
  await messageBox(page).press('Enter');

  const frame = chatFrame(page);
  await expect(frame.locator('[data-sender="bot"]').last()).toHaveText(`Your order ${ORDER} has shipped.`);
  // The note, from the action's `show`, opens to what was sent.
  const note = frame.getByText(`Order ${ORDER}: shipped`);
  await expect(note).toBeVisible();
  await note.click();
  await expect(frame.getByText(`order_number: ${ORDER}`)).toBeVisible();

  expect(actionsApp.owner.calls).toHaveLength(1);
  expect(actionsApp.owner.calls[0]).toMatchObject({ method: 'GET', url: `/orders/${ORDER}` });
  expect(actionsApp.owner.calls[0].headers.authorization).toBe(`Bearer ${token}`);
  const [first, second] = fake.requests;
  expect(toolNames(first.body)).toEqual(['order_status', 'request_callback']);
  expect(JSON.stringify(second.body)).toContain('shipped');
  // The model never sees the visitor's token.
  for (const request of fake.requests) expect(JSON.stringify(request.body)).not.toContain(token);
});

test('without the host page’s token the identity action is not offered', async ({ page, site, actionsApp, fake }) => {
  allowServerStart();
  fake.respondWith({ content: 'I cannot look orders up for you here.' });
  await openEmbed(page, site, actionsApp);
  await messageBox(page).fill(`Where is my order ${ORDER}?`);
  await messageBox(page).press('Enter');
  await expect(chatFrame(page).locator('[data-sender="bot"]').last()).toHaveText(
    'I cannot look orders up for you here.',
  );
  expect(toolNames(fake.requests[0].body)).toEqual(['request_callback']);
  expect(actionsApp.owner.calls).toHaveLength(0);
});

/** The next reply proposes a callback: the owner's text with Confirm and Cancel, focus on it. */
async function proposeCallback(page: Page, fake: FakeProvider) {
  fake.queue(
    { toolCall: { name: 'request_callback', arguments: JSON.stringify({ phone: PHONE, when: 'morning' }) } },
    { content: 'I can ask the shop to call you: please confirm.' },
  );
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Can you ask the shop to call me tomorrow morning?');
  await box.press('Enter');
  const confirmation = page.getByRole('group', { name: 'Confirmation' }).last();
  await expect(confirmation).toContainText(CONFIRM_TEXT);
  await expect(confirmation).toBeFocused();
  await expect(box).toHaveAttribute('placeholder', 'Confirm or cancel above, or type a new message');
  return confirmation;
}

/** Clicks `button` in the confirmation and gives the token and conversation the page then sent to the server. */
async function press(page: Page, confirmation: Locator, button: 'Confirm' | 'Cancel') {
  const sent = page.waitForRequest((request) => request.url().endsWith(ACTIONS_CONFIRM_PATH));
  await confirmation.getByRole('button', { name: button }).click();
  const request = await sent;
  const { confirmation: token, conversation } = request.postDataJSON() as {
    confirmation: string;
    conversation: string;
  };
  expect(token).toBeTruthy();
  expect(conversation).toMatch(/^[0-9a-f]{32}$/);
  return { request, token, conversation };
}

/** A Confirm of `proposal`'s token sent straight to the server, as a forger would: the refusal's code, if any. */
async function confirmDirectly(page: Page, app: ActionsApp, proposal: { token: string; conversation: string }) {
  const answer = await page.request.post(`${app.url}${ACTIONS_CONFIRM_PATH}`, {
    data: {
      model: 'any',
      messages: [{ role: 'user', content: 'Can you ask the shop to call me tomorrow morning?' }],
      confirmation: proposal.token,
      conversation: proposal.conversation,
    },
  });
  return answer.ok() ? undefined : (await answer.json()).error.code;
}

test('a callback: the owner’s text, Cancel calls nothing, Confirm calls once, the same token again is refused', async ({
  page,
  chat,
  actionsApp,
  fake,
}) => {
  allowServerStart();
  await chat.open();
  await chat.markdownLoaded();

  const proposed = await proposeCallback(page, fake);
  await expectNoAxeViolations(page, 'with a confirmation pending');
  const first = await press(page, proposed, 'Cancel');
  expect(first.request.postDataJSON()).toMatchObject({ cancel: true });
  await expect(proposed).toContainText('Cancelled: nothing was done.');
  // The server took it: the token is used up (below).
  expect((await first.request.response())?.status()).toBe(200);
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', 'Your message here');
  expect(actionsApp.owner.calls).toHaveLength(0);
  expect(await confirmDirectly(page, actionsApp, first)).toBe('replayed_token');

  const again = await proposeCallback(page, fake);
  fake.queue({ content: 'Done: the shop will call you tomorrow morning.' });
  const second = await press(page, again, 'Confirm');
  await expect(chat.bubbles('bot').last()).toHaveText('Done: the shop will call you tomorrow morning.');
  await expect(again).toContainText('Confirmed.');
  expect(actionsApp.owner.calls).toHaveLength(1);
  expect(actionsApp.owner.calls[0]).toMatchObject({ method: 'POST', url: '/callbacks' });
  expect(JSON.parse(actionsApp.owner.calls[0].body)).toEqual({ phone: PHONE, when: 'morning' });
  expect(actionsApp.owner.calls[0].headers['x-assistant-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

  // The same token again, straight to the server: refused as used, and nothing called.
  expect(await confirmDirectly(page, actionsApp, second)).toBe('replayed_token');
  expect(actionsApp.owner.calls).toHaveLength(1);
  await expectNoAxeViolations(page, 'after a confirmed and a cancelled action');
});
