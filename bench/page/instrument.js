// Injected into the app and the baseline before their scripts run; drives them only through the visitor's DOM.
// It stands in for React DevTools' hook, which production React reports every commit to, to count rendered rows.

(() => {
  const input = () => document.querySelector('input[aria-label="Message"]');
  const log = () => document.querySelector('[role="log"]');
  const BUBBLE = '[data-sender]';
  // Rows may sit directly in the log (the baseline) or in groups of rows (the app): count the bubbles.
  const messageCount = () => log()?.querySelectorAll(BUBBLE).length ?? 0;
  const bubblesIn = (node) =>
    node.nodeType === Node.ELEMENT_NODE ? (node.matches(BUBBLE) ? 1 : 0) + node.querySelectorAll(BUBBLE).length : 0;
  const isIdle = () => Boolean(input() && !input().disabled && log());

  // renderedRows is null while no append is timed.
  const state = { ready: null, commits: 0, renderedRows: null, longTasks: [] };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.longTasks.push(Math.round(entry.duration));
  }).observe({ type: 'longtask' });

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

  // A row is a memoised fiber (tag 14 or 15) with `text` and `sender` props; flag 1 (PerformedWork) means it rendered
  // in this commit. A memo that bailed out keeps stale flags below it, so the walk stops there.
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
    onCommitFiberUnmount: noop,
    onPostCommitFiberRoot: noop,
    onScheduleFiberRoot: noop,
    setStrictMode: noop,
    checkDCE: noop,
  };

  // A message posted now is handled after this frame's style, layout and paint.
  const afterFrameWork = () =>
    new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve(performance.now(), channel.port1.close());
      channel.port2.postMessage(null);
    });
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

  // Through the native setter, so that React's onChange sees the input event.
  function setDraft(text) {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input(), text);
    input().dispatchEvent(new Event('input', { bubbles: true }));
  }

  async function fillTo(target, userText) {
    while (messageCount() < target) {
      await until(isIdle);
      const before = messageCount();
      setDraft(`${userText} #${before / 2 + 1}`);
      input().form.requestSubmit();
      await until(() => messageCount() >= before + 2 && isIdle());
      performance.clearResourceTimings();
    }
  }

  // From a submit at the start of a frame to the end of its rendering work; the caller delays the reply past it.
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

  // `armSend()` before Enter is pressed; `sendResult()` then waits for the reply and returns the timings.
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

  const textChars = () =>
    [...log().querySelectorAll(BUBBLE)].reduce((sum, bubble) => sum + bubble.textContent.length, 0);

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
    textStats: () => ({ messages: messageCount(), textChars: textChars() }),
    takeLongTasks: () => state.longTasks.splice(0),
  };
})();
