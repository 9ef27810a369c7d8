// Injected by the benchmark into the app and the baseline page before their own scripts run (Playwright's
// `addInitScript`), as plain JavaScript so that it reaches the page exactly as written. It only observes and drives
// the page through the DOM a visitor uses (the message box, the form, the log); `window.__bench` is its interface.
//
// It also stands in for React DevTools' global hook, which production React DOM reports every commit to: that is
// how the benchmark counts which message rows React rendered, in the production build, without shipping anything.

(() => {
  const input = () => document.querySelector('input[aria-label="Message"]');
  const log = () => document.querySelector('[role="log"]');
  const BUBBLE = '[data-sender]';
  // Rows may sit directly in the log (the baseline) or in groups of rows (the app): count the bubbles.
  const messageCount = () => log()?.querySelectorAll(BUBBLE).length ?? 0;
  const bubblesIn = (node) =>
    node.nodeType === Node.ELEMENT_NODE ? (node.matches(BUBBLE) ? 1 : 0) + node.querySelectorAll(BUBBLE).length : 0;
  const isIdle = () => Boolean(input() && !input().disabled && log());

  const state = {
    /** `performance.now()` when the message box first became enabled: the card accepts typing. */
    ready: null,
    /** While an append is timed: the commits, and the message rows that rendered in them (null: not counting). */
    commits: 0,
    renderedRows: null,
    longTasks: [],
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.longTasks.push(Math.round(entry.duration));
  }).observe({ type: 'longtask' });

  /** Resolves when `condition()` holds, checked after each change to the page (no polling). */
  const until = (condition) =>
    new Promise((resolve) => {
      if (condition()) return resolve();
      const observer = new MutationObserver(() => {
        if (condition()) resolve(observer.disconnect());
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    });

  // Ready: the message box is enabled (the static shell's is disabled) and the page's scripts have run (module
  // scripts run before DOMContentLoaded; before that, Enter would submit a plain form).
  const whenReady = new Promise((resolve) => {
    const check = () => {
      if (state.ready !== null || document.readyState === 'loading' || !isIdle()) return;
      state.ready = performance.now();
      resolve(observer.disconnect());
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { subtree: true, childList: true, attributes: true });
    document.addEventListener('DOMContentLoaded', check);
  });

  // React commits: a row is a memoised component (fiber tag 14 or 15) whose props are a message's `text` and
  // `sender`; its `PerformedWork` flag (1) is set when it rendered in this commit, clear when it bailed out. A memoised
  // component that did not render keeps its children from an earlier commit, flags included: the walk stops there.
  const MEMO_TAGS = new Set([14, 15]);
  const isRow = ({ tag, memoizedProps: props }) => MEMO_TAGS.has(tag) && props && 'text' in props && 'sender' in props;
  function countRenderedRows(rootFiber) {
    let rendered = 0;
    const stack = [rootFiber];
    while (stack.length > 0) {
      const fiber = stack.pop();
      const performed = (fiber.flags & 1) !== 0;
      if (isRow(fiber)) rendered += performed ? 1 : 0;
      else if (performed || !MEMO_TAGS.has(fiber.tag)) {
        for (let child = fiber.child; child; child = child.sibling) stack.push(child);
      }
    }
    return rendered;
  }
  const noop = () => undefined;
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject: () => 1,
    onCommitFiberRoot(_rendererId, root) {
      if (state.renderedRows === null) return;
      state.commits += 1;
      state.renderedRows += countRenderedRows(root.current);
    },
    ...Object.fromEntries(
      ['onCommitFiberUnmount', 'onPostCommitFiberRoot', 'onScheduleFiberRoot', 'setStrictMode', 'checkDCE'].map(
        (name) => [name, noop],
      ),
    ),
  };

  /** Resolves after the rendering work of the current frame (style, layout, paint) is done, with the time. */
  const afterFrameWork = () =>
    new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve(performance.now(), channel.port1.close());
      channel.port2.postMessage(null);
    });
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

  /** Types `text` into the box as an `input` event does (React's onChange sees it too). */
  function setDraft(text) {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input(), text);
    input().dispatchEvent(new Event('input', { bubbles: true }));
  }

  /** Sends messages through the form until the list holds `target` messages (each send adds the message and its reply). */
  async function fillTo(target, userText) {
    while (messageCount() < target) {
      await until(isIdle);
      const before = messageCount();
      setDraft(`${userText} #${before / 2 + 1}`);
      input().form.requestSubmit();
      await until(() => messageCount() >= before + 2 && isIdle());
      // Resource timing entries are not needed here; keep the buffer from filling up.
      if (before % 400 === 0) performance.clearResourceTimings();
    }
    performance.clearResourceTimings();
  }

  /**
   * One submit, timed from the submit (at the start of a frame) to the end of that frame's rendering work, with what
   * changed in the log meanwhile. The caller makes the provider slow enough that the reply cannot land in between.
   */
  async function measureAppend(text) {
    await until(isIdle);
    setDraft(text);
    await nextFrame();
    await nextFrame();
    const records = [];
    const observer = new MutationObserver((batch) => records.push(...batch));
    observer.observe(log(), { subtree: true, childList: true, attributes: true, characterData: true });
    state.renderedRows = 0;
    state.commits = 0;
    const start = performance.now();
    input().form.requestSubmit();
    const end = await afterFrameWork();
    records.push(...observer.takeRecords());
    observer.disconnect();
    const added = records.filter((record) => [...record.addedNodes].some((node) => bubblesIn(node) > 0));
    const count = (key) => added.reduce((sum, r) => sum + [...r[key]].reduce((n, node) => n + bubblesIn(node), 0), 0);
    const renderedRows = state.commits > 0 ? state.renderedRows : null;
    state.renderedRows = null;
    // Rows removed count as other changes: an append should remove none.
    const otherMutations = records.length - added.length + count('removedNodes');
    return { ms: end - start, addedRows: count('addedNodes'), otherMutations, renderedRows };
  }

  // Per-message overhead: `armSend()` before pressing Enter in the box; `sendResult()` then waits for the reply and
  // returns Enter → request leaves, Enter → first piece painted, the response's first byte → the bubble in the DOM.
  let sendResult = null;
  function armSend() {
    performance.clearResourceTimings();
    const before = messageCount();
    let keydown = null;
    let botInDom = null;
    const onKeydown = (event) => {
      if (event.key === 'Enter' && keydown === null) keydown = event.timeStamp;
    };
    document.addEventListener('keydown', onKeydown, true);
    // The reply streams: its bubble appears with the first piece, soon after the response's first byte.
    const painted = until(() => messageCount() >= before + 2).then(() => {
      botInDom = performance.now();
      return nextFrame().then(afterFrameWork);
    });
    sendResult = async () => {
      const botPainted = await painted;
      await until(isIdle);
      document.removeEventListener('keydown', onKeydown, true);
      const entry = performance
        .getEntriesByType('resource')
        .find((resource) => resource.name.endsWith('/chat/completions') && resource.startTime >= keydown);
      return {
        enterToRequestMs: entry ? entry.startTime - keydown : null,
        enterToFirstPaintMs: botPainted - keydown,
        firstByteToDomMs: entry ? botInDom - entry.responseStart : null,
      };
    };
  }

  /** The text the page holds in its messages: what memory per message is compared with. */
  function textStats() {
    const bubbles = [...log().querySelectorAll(BUBBLE)];
    return { messages: bubbles.length, textChars: bubbles.reduce((sum, bubble) => sum + bubble.textContent.length, 0) };
  }

  window.__bench = {
    state,
    whenReady: () => whenReady,
    idle: () => until(isIdle),
    until,
    isIdle,
    messageCount,
    fillTo,
    measureAppend,
    armSend,
    sendResult: () => sendResult(),
    textStats,
    takeLongTasks: () => state.longTasks.splice(0),
  };
})();
