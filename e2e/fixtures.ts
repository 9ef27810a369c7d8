import { type BrowserContext, test as base, expect, type Locator, type Page, type TestInfo } from '@playwright/test';
import { type FakeProvider, startFakeProvider } from '../testing/fake-provider';
import { type HostSite, startHostSite } from '../testing/host-site';
import { startAppServer } from './app-server';
import { DIRECT_API_KEY, DIRECT_PROVIDER_PORT, E2E_MODEL, type Mode, UPSTREAM_API_KEY } from './e2e-env';

// The spec's visible texts, spelled out here: the suite checks the product, not the constants the code uses.
export const PLACEHOLDER = 'Your message here';
export const SENDING_PLACEHOLDER = 'Sending...';
export const NO_CONTENT = 'No response received';
export const ERROR = 'Error: Unable to get response';
/** How the app's `console.error` for a failed chat call starts (machines/chat-machine.ts). */
export const CHAT_ERROR_LOG = 'Chat request failed';

export type Sender = 'user' | 'bot';
export interface ShownMessage {
  sender: Sender;
  text: string;
}

/**
 * Resolves once React has taken over the card served in the page: the served card is editable before that, but nothing
 * it is given is the app's yet.
 */
export async function hydrated(page: Page) {
  await page.waitForFunction(() => {
    const input = document.querySelector('input[name="message"]');
    const key = input && Object.keys(input).find((name) => name.startsWith('__reactFiber'));
    if (!input || !key) return false;
    // React takes the card over as a transition, in slices: the input has its fiber while the take-over is still being
    // rendered. It is done once the tree the root shows is no longer the served one (dehydrated).
    type Fiber = { return: Fiber | null; stateNode: { current?: { memoizedState?: { isDehydrated?: boolean } } } };
    let fiber = (input as unknown as Record<string, Fiber>)[key];
    while (fiber.return) fiber = fiber.return;
    return fiber.stateNode.current?.memoizedState?.isDehydrated === false;
  });
}

/**
 * Resolves once a send from the page's message box is taken: its form has a submit listener (the served card's own
 * script, public/served-card.js, or the app's watch of the served card, src/served-card.ts), or the box is the app's
 * (it holds a React fiber; in dev no card is served and the app draws the box). The served box is in the page a
 * request before that script, which is loaded async at low priority: Enter pressed in between leaves the text in the
 * box and sends nothing (static-host.spec.ts), so a test that means to send early waits for this, not for the box.
 * Read through Chromium's DevTools protocol, which lists an element's listeners; the page is not asked to say so.
 */
export async function sendsAreTaken(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  const objectGroup = 'sends-are-taken';
  const taken = async () => {
    const { result } = await cdp.send('Runtime.evaluate', {
      objectGroup,
      expression: `(() => {
        const input = document.querySelector('input[name="message"]');
        if (!input) return false;
        if (Object.keys(input).some((key) => key.startsWith('__reactFiber'))) return true;
        return input.form ?? false;
      })()`,
    });
    if (result.type === 'boolean') return result.value as boolean;
    if (!result.objectId) return false;
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup });
    return listeners.some((listener) => listener.type === 'submit');
  };
  // A navigation still under way destroys the context an evaluation runs in: that is "not yet".
  await expect.poll(() => taken().catch(() => false), { message: 'a send from the box is taken' }).toBe(true);
  await cdp.detach();
}

/**
 * WCAG 2's relative luminance of a colour as computed styles give it (`rgb(r, g, b)` or `rgba(...)`). Any other form
 * (a colour caught half-way through a transition reads `oklab(...)`) is refused rather than misread.
 */
export function luminance(rgb: string): number {
  if (!/^rgba?\(/.test(rgb)) throw new Error(`luminance() reads rgb() colours only, not ${rgb}`);
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((channel) => {
    const c = Number(channel) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2's contrast of two computed colours. */
export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/**
 * Waits for every CSS transition running in the page and its frames to end. axe judges colours as they are painted at
 * that moment: half-way through a button's fade from disabled (opacity 0.5) to enabled, white on the accent reads
 * 4.05:1, a contrast no visitor is left with.
 */
export async function transitionsEnded(page: Page) {
  for (const frame of page.frames()) {
    await frame.evaluate(() =>
      Promise.all(
        document
          .getAnimations()
          .filter((animation) => animation instanceof CSSTransition)
          .map((transition) => transition.finished.catch(() => undefined)),
      ),
    );
  }
}

/** Where a located element is drawn; throws when it is not laid out. */
export async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator} is not laid out`);
  return found;
}

export type Box = Awaited<ReturnType<typeof box>>;

/** Whether two drawn boxes overlap. */
export function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Holds every request of `page` for `url` (a glob or a pattern) until the returned call lets them through; `onRequest`
 * hears of each when it is asked for.
 */
export async function holdRoute(page: Page, url: string | RegExp, onRequest: () => void = () => undefined) {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    onRequest();
    await held;
    await route.continue();
  });
  return release;
}

/**
 * React's hydration errors, as the page reports them: the development build's messages ("Hydration failed…", "A tree
 * hydrated but…", "…didn't match the client"), and the production build's minified errors about hydration (#418
 * text, #419 Suspense boundary, #421 update before hydration, #422/#423 recovered by client rendering, #425 text),
 * which React reports as recoverable errors (`reportError`: an uncaught error of the page) and throws away the
 * served card for.
 */
const HYDRATION_ERROR = /hydrat|didn't match the client|Minified React error #(?:418|419|421|422|423|425)\b/i;

/**
 * Records every hydration error in `context`'s pages and frames (the embed's too), from the console and as uncaught
 * errors, into the list it returns.
 */
export function watchHydration(context: BrowserContext): string[] {
  const errors: string[] = [];
  context.on('console', (message) => {
    if (HYDRATION_ERROR.test(message.text())) errors.push(`console.${message.type()}: ${message.text()}`);
  });
  context.on('weberror', (error) => {
    const text = String(error.error());
    if (HYDRATION_ERROR.test(text)) errors.push(`uncaught: ${text}`);
  });
  return errors;
}

/** The token the provider must receive in each mode. */
export function providerToken(mode: Mode): string {
  return mode === 'proxy' ? UPSTREAM_API_KEY : DIRECT_API_KEY;
}

/** Whether the build asks for streamed replies: `VITE_LLM_STREAM`'s default, on through the proxy, off in direct mode. */
export function streams(mode: Mode): boolean {
  return mode === 'proxy';
}

/**
 * The exact body the provider must receive for a visitor's message: the specification's payload, plus `stream: true`
 * in a streaming build, with which the proxy asks for the stream's token usage (for the spend cap; the page never
 * sees it).
 */
export function expectedPayload(text: string, mode: Mode) {
  const payload = { model: E2E_MODEL, messages: [{ role: 'user', content: text }], max_tokens: 250, temperature: 0.7 };
  return streams(mode) ? { ...payload, stream: true, stream_options: { include_usage: true } } : payload;
}

/** A request the page made, as the browser sent it. */
export interface PageRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * The chat as a visitor meets it: located by role and accessible name, read as text. It also records what the page
 * said on the console and which requests it made, for the checks that need them.
 */
export class ChatPage {
  readonly main: Locator;
  readonly input: Locator;
  readonly sendButton: Locator;
  readonly log: Locator;
  readonly stopButton: Locator;
  readonly retryButton: Locator;
  /** The dots shown while the first piece of a reply is awaited (decoration, hidden from screen readers). */
  readonly typingIndicator: Locator;
  /** The status shown when the first piece is late. */
  readonly slowHint: Locator;
  /** The notes on replies the visitor stopped. */
  readonly stoppedNotes: Locator;
  /** Every console message of type `error`, as text. */
  readonly consoleErrors: string[] = [];
  /** Uncaught exceptions in the page; any of them fails the test. */
  readonly pageErrors: Error[] = [];
  readonly requests: PageRequest[] = [];

  constructor(readonly page: Page) {
    this.main = page.getByRole('main');
    this.input = page.getByRole('textbox', { name: 'Message' });
    this.sendButton = page.getByRole('button', { name: 'Send' });
    this.log = page.getByRole('log', { name: 'Conversation' });
    this.stopButton = page.getByRole('button', { name: 'Stop', exact: true });
    this.retryButton = page.getByRole('button', { name: 'Retry', exact: true });
    this.typingIndicator = page.getByTestId('typing-indicator');
    this.slowHint = this.log.getByText(/^Still working on a reply/);
    this.stoppedNotes = this.log.getByText('Reply stopped', { exact: true });
    page.on('console', (message) => {
      if (message.type() === 'error') this.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => this.pageErrors.push(error));
    page.on('request', async (request) => {
      const entry: PageRequest = { url: request.url(), method: request.method(), headers: {}, body: null };
      this.requests.push(entry);
      entry.headers = await request.allHeaders().catch(() => request.headers());
      entry.body = request.postData();
    });
  }

  /** Opens the chat at `url`: the worker's own server by default. */
  async open(url = '/') {
    await this.page.goto(url);
    await expect(this.input).toBeEditable();
    await hydrated(this.page);
  }

  /** Waits until the Markdown renderer is in, so that what follows goes through it rather than the plain fallback. */
  async markdownLoaded() {
    await expect
      .poll(() =>
        this.page.evaluate(() => performance.getEntriesByType('resource').some((e) => /rich-reply-/.test(e.name))),
      )
      .toBe(true);
  }

  /** The bubbles, oldest first. */
  bubbles(sender?: Sender): Locator {
    return this.log.locator(sender ? `[data-sender="${sender}"]` : '[data-sender]');
  }

  /** The conversation as shown: each bubble's sender and exact text (no whitespace folding). */
  transcript(): Promise<ShownMessage[]> {
    return this.bubbles().evaluateAll((bubbles) =>
      bubbles.map((bubble) => ({
        sender: (bubble as HTMLElement).dataset.sender as Sender,
        text: bubble.textContent ?? '',
      })),
    );
  }

  async expectTranscript(expected: ShownMessage[], timeout?: number) {
    // Polled often, so that the time a test measures to a message is the app's, not the poll's.
    await expect
      .poll(() => this.transcript(), { message: 'the conversation shown', timeout, intervals: [50] })
      .toEqual(expected);
  }

  /** The `console.error` lines the app wrote for failed chat calls. */
  chatErrors(): string[] {
    return this.consoleErrors.filter((line) => line.startsWith(CHAT_ERROR_LOG));
  }

  async type(text: string) {
    await this.input.fill(text);
  }

  async sendWithEnter(text?: string) {
    if (text !== undefined) await this.type(text);
    await this.input.press('Enter');
  }

  async sendWithClick(text?: string) {
    if (text !== undefined) await this.type(text);
    await this.sendButton.click();
  }

  /**
   * While a request is pending: the box is empty and disabled and says 'Sending...', the button is disabled. (After
   * a Retry, the box keeps the `value` the visitor had typed meanwhile.)
   */
  async expectSending(value = '') {
    await expect(this.input).toHaveAttribute('placeholder', SENDING_PLACEHOLDER);
    await expect(this.input).toBeDisabled();
    await expect(this.input).toHaveValue(value);
    await expect(this.sendButton).toBeDisabled();
  }

  /** Ready for the next message: both controls enabled, the usual placeholder. */
  async expectIdle({ timeout }: { timeout?: number } = {}) {
    await expect(this.input).toBeEnabled({ timeout });
    await expect(this.input).toHaveAttribute('placeholder', PLACEHOLDER);
    await expect(this.sendButton).toBeEnabled();
  }

  /** After a reply: idle with an empty box that has the focus again. */
  async expectReadyAfterReply({ timeout }: { timeout?: number } = {}) {
    await this.expectIdle({ timeout });
    await expect(this.input).toHaveValue('');
    await expect(this.input).toBeFocused();
  }
}

/** A server a test file starts: the worker closes it. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * The servers that test files start for their tests: each once in a worker, when a test first asks for it, and closed
 * at the worker's end, the last started first (so a server closes before the one it was started on). Files declare
 * their servers as test fixtures that ask this for them, not as worker fixtures of their own: Playwright goes on in a
 * worker only with files whose worker fixtures are the same, and the files' own made 31 new workers in a run (each a
 * new process, browser and production server: 3.8 s of a worker's time).
 */
export class WorkerServers {
  readonly #started = new Map<string, Promise<Closable>>();

  /** The server named `key` (one name per server, across every file), started by `start` if none is yet. */
  once<T extends Closable>(key: string, start: () => Promise<T>): Promise<T> {
    let started = this.#started.get(key);
    if (!started) {
      started = start();
      this.#started.set(key, started);
    }
    return started as Promise<T>;
  }

  async close(): Promise<void> {
    for (const started of [...this.#started.values()].reverse()) {
      await (await started.catch(() => undefined))?.close();
    }
  }
}

/** The time a test fixture has to start a worker's server when its first test asks, apart from the test's own. */
export const SERVER_START = { timeout: 90_000 };

interface WorkerFixtures {
  /** Set per project in playwright.config.ts. */
  mode: Mode;
  /** The servers the files start, once each in the worker. */
  servers: WorkerServers;
  /** One fake provider per worker; each test gets it reset through `fake`. */
  provider: FakeProvider;
  /** The production server serving the app as built for `mode`, and what it printed. */
  app: { url: string; output: string[] };
}

interface TestFixtures {
  /** Hydration errors in the test's browser context; any fails the test (every test of the suite has it). */
  hydrationErrors: string[];
  /** The fake provider, fresh for this test: no requests recorded, the default reply. */
  fake: FakeProvider;
  /** The chat page, opened. */
  chat: ChatPage;
  /** A host site of its own origin (the embed's tests): pages are added with `page()`. */
  site: HostSite;
  /** Another, that the apps here are not told may embed them. */
  foreignSite: HostSite;
  /** The production server (proxy mode) with no configuration (the spec), told that `site` may embed it. */
  embedApp: { url: string; origin: string; output: string[] };
}

async function attachServerOutput(testInfo: TestInfo, output: string[], from: number) {
  if (testInfo.status !== testInfo.expectedStatus && output.length > from) {
    await testInfo.attach('server output', { body: output.slice(from).join('\n'), contentType: 'text/plain' });
  }
}

/** The page and context events the suite's tests and fixtures listen to. */
const TEST_EVENTS = ['console', 'pageerror', 'weberror', 'request', 'response', 'dialog'];

export const test = base.extend<TestFixtures, WorkerFixtures>({
  mode: ['proxy', { option: true, scope: 'worker' }],

  provider: [
    async ({ mode }, use) => {
      const provider = await startFakeProvider({ port: mode === 'direct' ? DIRECT_PROVIDER_PORT : 0 });
      await use(provider);
      await provider.close();
    },
    { scope: 'worker' },
  ],

  servers: [
    // After the provider, so that it closes after the servers that call it.
    async ({ provider: _provider }, use) => {
      const servers = new WorkerServers();
      await use(servers);
      await servers.close();
    },
    { scope: 'worker' },
  ],

  site: [async ({ servers }, use) => use(await servers.once('host site', startHostSite)), SERVER_START],
  foreignSite: [async ({ servers }, use) => use(await servers.once('foreign site', startHostSite)), SERVER_START],
  embedApp: [
    async ({ provider, site, servers }, use) => {
      const server = await servers.once('embed app', () => startEmbedApp(provider, site));
      await use({ url: server.url, origin: new URL(server.url).origin, output: server.output });
    },
    SERVER_START,
  ],

  app: [
    async ({ mode, provider }, use) => {
      const server = await startAppServer(mode, provider.baseURL);
      await use({ url: server.url, output: server.output });
      await server.close();
    },
    { scope: 'worker' },
  ],

  baseURL: async ({ app }, use) => {
    await use(app.url);
  },

  fake: async ({ provider, app }, use, testInfo) => {
    provider.reset();
    const from = app.output.length;
    await use(provider);
    await attachServerOutput(testInfo, app.output, from);
  },

  hydrationErrors: [
    async ({ context }, use) => {
      const errors = watchHydration(context);
      await use(errors);
      // The context and its page go on to the worker's next test (`reuseContext`, playwright.config.ts), which
      // Playwright resets but whose listeners it keeps: what this test listened for ends with it. Only the events
      // tests listen to: Playwright waits for a page's or a context's close through listeners of its own.
      for (const emitter of [context, ...context.pages()]) {
        for (const event of TEST_EVENTS) await emitter.removeAllListeners(event, { behavior: 'ignoreErrors' });
      }
      expect(errors, 'React hydration errors (a mismatch between the served card and the app)').toEqual([]);
    },
    { auto: true },
  ],

  // Takes `fake` so that the provider is reset before the page opens.
  chat: async ({ page, fake: _fake }, use) => {
    const chat = new ChatPage(page);
    await chat.open();
    await use(chat);
    expect(chat.pageErrors, 'uncaught exceptions in the page').toEqual([]);
  },
});

export { expect };

/**
 * The production server (proxy mode), told that `site` may embed it, with a site configuration (`ASSISTANT_CONFIG`)
 * when one is given.
 */
export function startEmbedApp(provider: FakeProvider, site: HostSite, config?: string) {
  return startAppServer('proxy', provider.baseURL, {
    ...(config ? { ASSISTANT_CONFIG: config } : {}),
    FRAME_ANCESTORS: site.origin,
  });
}
