// Injected by the benchmark into the app and the baseline page before their own scripts run (Playwright's
// `addInitScript`), as plain JavaScript so that it reaches the page exactly as written. It only observes and drives
// the page through the DOM a visitor uses (the message box, the form, the log); `window.__bench` is its interface.
//
// It also stands in for React DevTools' global hook, which production React DOM reports every commit to: that is
// how the benchmark counts which message rows React rendered, in the production build, without shipping anything.

(() => {
  const INPUT = 'input[aria-label="Message"]';
  const LOG = '[role="log"]';
  // React's `PerformedWork` fiber flag: set on a component that rendered in this commit, clear on one that bailed
  // out (a memoised row whose props did not change).
  const PERFORMED_WORK = 1;

  const input = () => document.querySelector(INPUT);
  const log = () => document.querySelector(LOG);
  const BUBBLE = '[data-sender]';
  // Rows may sit directly in the log (the baseline) or in groups of rows (the app): count the bubbles.
  const messageCount = () => log()?.querySelectorAll(BUBBLE).length ?? 0;
  const bubblesIn = (node) =>
    node.nodeType === Node.ELEMENT_NODE ? (node.matches(BUBBLE) ? 1 : 0) + node.querySelectorAll(BUBBLE).length : 0;
  const isIdle = () => {
    const box = input();
    return Boolean(box && !box.disabled && log());
  };

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

  // --- readiness: the first moment the message box is enabled (the static shell's is disabled) and the page's
  // scripts have run (module scripts run before DOMContentLoaded; before that, Enter would submit a plain form) ---
  let markReady;
  const whenReady = new Promise((resolve) => {
    markReady = resolve;
  });
  const checkReady = () => {
    if (state.ready === null && document.readyState !== 'loading' && isIdle()) {
      state.ready = performance.now();
      readiness.disconnect();
      markReady(state.ready);
    }
  };
  const readiness = new MutationObserver(checkReady);
  readiness.observe(document, { subtree: true, childList: true, attributes: true });
  document.addEventListener('DOMContentLoaded', checkReady);

  // --- React commits: message rows rendered per commit ---
  // A row is a memoised component (fiber tag 14 or 15) whose props are a message's `text` and `sender`. A memoised
  // component that did not render this commit keeps its children from an earlier one, flags included, so the walk
  // does not go below it: nothing under it rendered.
  const MEMO_TAGS = new Set([14, 15]);
  const isRow = (fiber) =>
    MEMO_TAGS.has(fiber.tag) && fiber.memoizedProps && 'text' in fiber.memoizedProps && 'sender' in fiber.memoizedProps;
  function countRenderedRows(rootFiber) {
    let rendered = 0;
    const stack = [rootFiber];
    while (stack.length > 0) {
      const fiber = stack.pop();
      const performed = (fiber.flags & PERFORMED_WORK) !== 0;
      if (isRow(fiber)) {
        if (performed) rendered += 1;
        continue;
      }
      if (MEMO_TAGS.has(fiber.tag) && !performed) continue;
      for (let child = fiber.child; child; child = child.sibling) stack.push(child);
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
    onCommitFiberUnmount: noop,
    onPostCommitFiberRoot: noop,
    onScheduleFiberRoot: noop,
    setStrictMode: noop,
    checkDCE: noop,
  };

  // --- helpers ---
  /** Resolves when `condition()` holds, checked after each change to the page (no polling). */
  function until(condition) {
    return new Promise((resolve) => {
      if (condition()) {
        resolve();
        return;
      }
      const observer = new MutationObserver(() => {
        if (condition()) {
          observer.disconnect();
          resolve();
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
  }

  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

  /** Runs `callback` after the rendering work of the current frame (style, layout, paint) is done. */
  function afterFrameWork(callback) {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      callback(performance.now());
    };
    channel.port2.postMessage(null);
  }

  /** Types `text` into the box as an `input` event does (React's onChange sees it too). */
  function setDraft(text) {
    const box = input();
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    setValue.call(box, text);
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }

  /** Sends messages through the form until the list holds `target` messages (each send adds the message and its reply). */
  async function fillTo(target, userText) {
    let sent = 0;
    while (messageCount() < target) {
      await until(isIdle);
      const before = messageCount();
      setDraft(`${userText} #${before / 2 + 1}`);
      input().form.requestSubmit();
      await until(() => messageCount() >= before + 2 && isIdle());
      sent += 1;
      // Resource timing entries are not needed here; keep the buffer from filling up.
      if (sent % 200 === 0) performance.clearResourceTimings();
    }
    performance.clearResourceTimings();
    return messageCount();
  }

  /**
   * One submit, timed from the submit (at the start of a frame) to the end of that frame's rendering work, with what
   * changed in the log meanwhile. The caller makes the provider slow enough that the reply cannot land in between.
   */
  async function measureAppend(text) {
    await until(isIdle);
    setDraft(text);
    await nextFrame();
    const list = log();
    return new Promise((resolve) => {
      requestAnimationFrame(() => {
        const records = [];
        const observer = new MutationObserver((batch) => records.push(...batch));
        observer.observe(list, { subtree: true, childList: true, attributes: true, characterData: true });
        state.renderedRows = 0;
        state.commits = 0;
        const start = performance.now();
        input().form.requestSubmit();
        afterFrameWork((end) => {
          records.push(...observer.takeRecords());
          observer.disconnect();
          const addsRows = (record) =>
            record.type === 'childList' && [...record.addedNodes].some((node) => bubblesIn(node) > 0);
          const added = records.filter(addsRows);
          const count = (key) =>
            added.reduce((sum, record) => sum + [...record[key]].reduce((n, node) => n + bubblesIn(node), 0), 0);
          resolve({
            ms: end - start,
            addedRows: count('addedNodes'),
            removedRows: count('removedNodes'),
            otherMutations: records.length - added.length,
            renderedRows: state.commits > 0 ? state.renderedRows : null,
          });
          state.renderedRows = null;
        });
      });
    });
  }

  // --- per-message overhead: Enter -> request leaves, response arrives -> bubble in the DOM and painted ---
  let pendingSend = null;

  /** Call before pressing Enter in the box; `sendResult()` then waits for the reply and returns the timings. */
  function armSend() {
    performance.clearResourceTimings();
    const list = log();
    const before = messageCount();
    const send = { before, keydown: null, botInDom: null };
    const painted = new Promise((resolve) => {
      send.paint = resolve;
    });
    const onKeydown = (event) => {
      if (event.key === 'Enter' && send.keydown === null) send.keydown = event.timeStamp;
    };
    document.addEventListener('keydown', onKeydown, true);
    const observer = new MutationObserver(() => {
      if (send.botInDom === null && messageCount() >= before + 2) {
        send.botInDom = performance.now();
        observer.disconnect();
        requestAnimationFrame(() => afterFrameWork(send.paint));
      }
    });
    observer.observe(list, { childList: true, subtree: true });
    send.done = async () => {
      const botPainted = await painted;
      await until(isIdle);
      document.removeEventListener('keydown', onKeydown, true);
      const entry = performance
        .getEntriesByType('resource')
        .find((resource) => resource.name.endsWith('/chat/completions') && resource.startTime >= send.keydown);
      // The reply streams: its bubble appears with the first piece, soon after the response's first byte.
      return {
        enterToRequestMs: entry ? entry.startTime - send.keydown : null,
        enterToFirstPaintMs: botPainted - send.keydown,
        firstByteToDomMs: entry ? send.botInDom - entry.responseStart : null,
        requestToFirstByteMs: entry ? entry.responseStart - entry.startTime : null,
      };
    };
    pendingSend = send;
  }

  function sendResult() {
    const send = pendingSend;
    pendingSend = null;
    return send.done();
  }

  /** The text the page holds in its messages: what memory per message is compared with. */
  function textStats() {
    const bubbles = [...log().querySelectorAll('[data-sender]')];
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
    sendResult,
    textStats,
    takeLongTasks: () => state.longTasks.splice(0),
  };
})();
