import type { Context } from 'hono';
import type { ServerEnv } from '../hono-env.ts';
import type { TraceSpan } from '../traces/traces.ts';

/** Why an exchange was stopped before the provider was done. */
export type StopReason = 'visitor-left' | 'timeout';

/**
 * One chat exchange with the provider: one abort signal for both reasons to stop (the visitor went away, so no
 * provider work is left running for nobody; or the provider took too long), a deadline, and one `end()` that runs the
 * cleanup once however the exchange ends. A stream's deadline restarts with each piece, as the page's does: a long
 * reply that keeps coming is not late, one that stops coming is. Its `span` (the model call's, in traces) ends with it.
 */
export class Exchange {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout>;
  private ended = false;
  stopped: StopReason | undefined;

  constructor(
    c: Context<ServerEnv>,
    private readonly timeoutMs: number,
    private readonly onEnd: () => void,
    readonly span: TraceSpan,
  ) {
    this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
    onVisitorLeft(c, () => this.stop('visitor-left'));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The provider is still answering: the deadline starts again. */
  stillComing(): void {
    if (this.ended) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.stop('timeout'), this.timeoutMs);
  }

  /** The provider's side of the exchange is over; safe to call from every exit, it acts once. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.onEnd();
    if (this.stopped) this.span.fail(this.stopped);
    this.span.end();
  }

  private stop(why: StopReason): void {
    this.stopped ??= why;
    this.controller.abort();
  }
}

/**
 * Calls `leave` when the visitor's connection closes before the answer is complete (as @hono/node-server decides when
 * it aborts `c.req.raw.signal`, which would cost each request a web AbortController of its own).
 */
function onVisitorLeft({ env: { incoming, outgoing } }: Context<ServerEnv>, leave: () => void): void {
  outgoing.once('close', () => {
    if (incoming.errored || !outgoing.writableFinished) leave();
  });
}
