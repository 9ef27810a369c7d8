import { useEffect, useState } from 'react';

type ReplyStatusModule = typeof import('./reply-status-ui');

// The typing indicator, the slow hint and Stop/Retry are needed only once a message is sent: they load as a chunk of
// their own right after the first render, off the start-up budget. Once in, they render synchronously.
let loaded: ReplyStatusModule | undefined;
let loading: Promise<ReplyStatusModule> | undefined;

/** Loads the reply-status components (once); tests await it before rendering so that nothing waits for it. */
export function loadReplyStatus(): Promise<ReplyStatusModule> {
  loading ??= import('./reply-status-ui').then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/** The reply-status components once loaded (asked for on first use), `undefined` until then. */
export function useReplyStatus(): ReplyStatusModule | undefined {
  const [module, setModule] = useState(loaded);
  useEffect(() => {
    // A chunk that cannot be fetched leaves the chat working without them: the spec's controls are not among them.
    if (!module) loadReplyStatus().then(setModule, () => undefined);
  }, [module]);
  return module;
}
