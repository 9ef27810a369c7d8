import type { Page } from '@playwright/test';
import { ChatPage, expect, test } from './fixtures';
import { XSS_CORPUS } from './xss-corpus';

// Rendering does not depend on how the page reaches the model: the corpus runs once, in proxy mode.
// Run in proxy mode only (e2e/playwright.config.ts).

interface Watch {
  trapCalls: number;
  violations: string[];
}

/**
 * Before any of the page's scripts: the trap a payload would call, and a watcher that checks every element and
 * attribute that ever appears in the conversation, including the states a reply passes through while it streams in.
 * Only the elements and attributes the renderer and the card create are allowed; a link may only go to http(s) or
 * mailto, in a new tab, without referrer or opener.
 */
async function watchConversation(page: Page) {
  await page.addInitScript(() => {
    const watch = { trapCalls: 0, violations: [] as string[] };
    Object.assign(window, { __watch: watch, __xss: () => (watch.trapCalls += 1) });
    const tags = new Set(
      'DIV SPAN P STRONG EM DEL CODE PRE A UL OL LI BLOCKQUOTE HR BR TABLE THEAD TBODY TR TH TD BUTTON'.split(' '),
    );
    const iconParts = new Set(['svg', 'path']);
    const check = (element: Element) => {
      if (!element.closest('[role="log"]')) return;
      const tag = element.tagName;
      const where = `${tag} in "${element.closest('[data-sender]')?.textContent?.slice(0, 60) ?? ''}"`;
      const isIcon = iconParts.has(tag) && element.closest('button') !== null;
      if (!tags.has(tag) && !isIcon) watch.violations.push(`element ${where}`);
      for (const { name, value } of Array.from(element.attributes)) {
        const allowed =
          name === 'class' ||
          name.startsWith('aria-') ||
          name.startsWith('data-') ||
          ['role', 'tabindex', 'title'].includes(name) ||
          (tag === 'BUTTON' && name === 'type') ||
          // The card's own directions: each bubble reads in its text's, code always left to right.
          (name === 'dir' && value === 'auto' && element.hasAttribute('data-sender')) ||
          (name === 'dir' && value === 'ltr' && element.hasAttribute('data-code-block')) ||
          (tag === 'OL' && name === 'start') ||
          (tag === 'A' && name === 'href' && /^(https?:\/\/|mailto:)/.test(value)) ||
          (tag === 'A' && name === 'target' && value === '_blank') ||
          (tag === 'A' && name === 'rel' && value === 'noopener noreferrer nofollow') ||
          (isIcon && ['viewBox', 'width', 'height', 'fill', 'stroke', 'stroke-width', 'd'].includes(name));
        if (!allowed) watch.violations.push(`attribute ${name}="${value}" on ${where}`);
      }
      if (tag === 'A' && !element.hasAttribute('href')) watch.violations.push(`link without a target: ${where}`);
    };
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.type === 'attributes' && record.target instanceof Element) check(record.target);
        for (const node of record.addedNodes) {
          if (!(node instanceof Element)) continue;
          check(node);
          for (const inner of node.querySelectorAll('*')) check(inner);
        }
      }
    }).observe(document, { childList: true, subtree: true, attributes: true });
  });
}

const GROUP_SIZE = 15;
const groups = Array.from({ length: Math.ceil(XSS_CORPUS.length / GROUP_SIZE) }, (_, index) =>
  XSS_CORPUS.slice(index * GROUP_SIZE, (index + 1) * GROUP_SIZE),
);

test('the corpus has at least 60 hostile replies, each with its own name', () => {
  expect(XSS_CORPUS.length).toBeGreaterThanOrEqual(60);
  expect(new Set(XSS_CORPUS.map((reply) => reply.name)).size).toBe(XSS_CORPUS.length);
});

for (const [index, group] of groups.entries()) {
  test(`hostile replies ${index * GROUP_SIZE + 1}–${index * GROUP_SIZE + group.length} render inert`, async ({
    page,
    fake,
  }) => {
    test.setTimeout(60_000);
    await watchConversation(page);
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    const chat = new ChatPage(page);
    await chat.open();
    // Wait for the renderer, so that every reply goes through it rather than the plain-text fallback.
    fake.queue({ content: '**Ready**' });
    await chat.sendWithEnter('Ready?');
    await expect(chat.bubbles('bot').last().locator('strong')).toHaveText('Ready');

    for (const reply of group) {
      fake.queue(reply.pieces ? { stream: reply.pieces, pieceDelayMs: 40 } : { content: reply.source });
      await chat.sendWithEnter(`Next: ${reply.name}`);
      await chat.expectReadyAfterReply();
      // Give a handler that was wrongly created the time to fire.
      await page.waitForTimeout(50);
      const unsafe = await chat.log.evaluate((log) => {
        const found = Array.from(
          log.querySelectorAll(
            'img, script, iframe, frame, object, embed, form, input, textarea, select, style, link, meta, base, math, video, audio, source, template, noscript, [style], :not(button) > svg',
          ),
          (element) => element.outerHTML.slice(0, 80),
        );
        for (const link of log.querySelectorAll('a')) {
          if (!/^(https?:\/\/|mailto:)/.test(link.getAttribute('href') ?? '')) found.push(link.outerHTML.slice(0, 80));
        }
        return found;
      });
      if (reply.shows !== undefined) {
        const bubble = chat.bubbles('bot').last();
        await expect(bubble, reply.name).toContainText(reply.shows);
        await expect(bubble.locator('a'), reply.name).toHaveCount(0);
      }
      const watch = await page.evaluate(() => (window as unknown as { __watch: Watch }).__watch);
      expect({ unsafe, ...watch, dialogs }, reply.name).toEqual({
        unsafe: [],
        trapCalls: 0,
        violations: [],
        dialogs: [],
      });
    }

    // No request left the page because of a reply: only the app's own files and one chat request per message.
    const origin = new URL(page.url()).origin;
    const elsewhere = chat.requests.filter((request) => !request.url.startsWith(`${origin}/`)).map((r) => r.url);
    expect(elsewhere).toEqual([]);
    const chatRequests = chat.requests.filter((request) => request.url.includes('/chat/completions'));
    expect(chatRequests.map((request) => request.method)).toEqual(Array(group.length + 1).fill('POST'));
    const others = chat.requests.filter(
      (request) =>
        // The page's own files: its bundle, its icon and the served card's script.
        !chatRequests.includes(request) &&
        !/^\/(assets\/.*|robot\.svg|served-card\.js)?$/.test(new URL(request.url).pathname),
    );
    expect(others.map((request) => request.url)).toEqual([]);
    expect(chat.pageErrors).toEqual([]);
  });
}
