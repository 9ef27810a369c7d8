import { lazyModule, useLazyModule } from '../lazy-module';

// The typing indicator, the slow hint and Stop/Retry are needed only once a message is sent: they load as a chunk of
// their own right after the first render, off the start-up budget. A chunk that cannot be fetched leaves the chat
// working without them: the spec's controls are not among them.
const replyStatus = lazyModule(() => import('./reply-status-ui'));

/** Loads the reply-status components (once); tests await it before rendering so that nothing waits for it. */
export const loadReplyStatus = replyStatus.load;

/** The reply-status components once loaded (asked for on first use), `undefined` until then. */
export const useReplyStatus = () => useLazyModule(replyStatus);
