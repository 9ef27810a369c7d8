import { expect, type FrameLocator, type Page } from '@playwright/test';
import type { EmbedApi } from '../embed/loader';
import type { FakeProvider } from '../testing/fake-provider';
import type { HostSite } from '../testing/host-site';
import { SERVER_START, startEmbedApp, type WorkerServers } from './fixtures';

// For the embed's browser tests: the provider's reset, an app with a site's configuration, and the host page's parts.

/** Each test starts with a fresh fake provider (one provider serves the worker's tests). */
export const resetProviderFixture = [
  async ({ provider }: { provider: FakeProvider }, use: (value: undefined) => Promise<void>) => {
    provider.reset();
    await use(undefined);
  },
  { auto: true },
] as const;

/**
 * A test fixture: the production server (proxy mode) with the site configuration `config`, told that `site` may embed
 * it; one per worker, started when a test first asks.
 */
export function configuredAppFixture(config: string) {
  return [
    async (
      { provider, site, servers }: { provider: FakeProvider; site: HostSite; servers: WorkerServers },
      use: (app: { url: string; origin: string; output: string[] }) => Promise<void>,
    ) => {
      const server = await servers.once(`app of ${config}`, () => startEmbedApp(provider, site, config));
      await use({ url: server.url, origin: new URL(server.url).origin, output: server.output });
    },
    SERVER_START,
  ] as const;
}

/** The host page's launcher, named by the app's title in English. */
export const launcher = (page: Page) => page.getByRole('button', { name: 'Chat with AI Assistant' });
/** The chat's frame on the host page. */
export const chatFrame = (page: Page): FrameLocator => page.frameLocator('iframe[title="AI Assistant chat"]');
/** The message box in the chat's frame. */
export const messageBox = (page: Page) => chatFrame(page).getByRole('textbox', { name: 'Message' });

/**
 * Waits until the frame's message box is the app's (it holds a React fiber): before that it may be the served card's,
 * where an Enter pressed before its script has loaded sends nothing (static-host.spec.ts). On a phone nothing loads the
 * frame before the tap that opens it, so a test that types at once waits for this first.
 */
export async function appTookOver(page: Page) {
  const box = messageBox(page);
  await expect
    .poll(
      () =>
        box.evaluate((input) => Object.keys(input).some((key) => key.startsWith('__reactFiber'))).catch(() => false),
      {
        message: "the frame's message box is the app's",
      },
    )
    .toBe(true);
}

/** What a site's own button would call: the loader's global API. */
export function callApi(page: Page, method: keyof EmbedApi) {
  return page.evaluate((name) => (window as unknown as { AIAssistant: EmbedApi }).AIAssistant[name](), method);
}

/**
 * Records, in the chat's frame (the page at `appOrigin`) from the moment it starts, each `identify` message it hears:
 * its origin and token. The returned call reads them; it waits for the frame's message box.
 */
export async function recordIdentify(page: Page, appOrigin: string) {
  await page.addInitScript((origin) => {
    if (location.origin !== origin) return;
    const heard: [string, unknown][] = [];
    Object.assign(window, { heard });
    addEventListener('message', (event) => {
      if (event.data?.type === 'identify') heard.push([event.origin, event.data.token]);
    });
  }, appOrigin);
  return () => messageBox(page).evaluate(() => (window as unknown as { heard: [string, unknown][] }).heard);
}
