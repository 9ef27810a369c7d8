import { readUsage, type TokenUsage } from '../limits/spend-cap.ts';

/** The event that ends a relayed stream whose provider broke off: the openai client reads it as a failed call. */
const STREAM_BROKE_OFF = new TextEncoder().encode(
  `data: ${JSON.stringify({ error: { message: 'The language model stream broke off.', type: 'upstream_error' } })}\n\n`,
);

/**
 * Takes the usage chunk (`stream_options.include_usage`) out of a server-sent-events stream: its count goes to
 * `onUsage`, and the page never sees it (it carries no choices, and no content for the visitor). Every other event is
 * passed on unchanged as soon as it is complete.
 */
export class UsageFilter {
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();
  private pending = '';
  /** The counting of the usage seen so far, to wait for before the end of the stream is passed on. */
  counted: Promise<void> = Promise.resolve();

  constructor(private readonly onUsage: (usage: TokenUsage) => Promise<void>) {}

  /** The complete events of `chunk` (and of what came before it) to pass on; `undefined` when there are none yet. */
  push(chunk: Uint8Array): Uint8Array | undefined {
    this.pending += this.decoder.decode(chunk, { stream: true });
    const events = this.pending.split(/\r?\n\r?\n/);
    this.pending = events.pop() ?? '';
    let out = '';
    for (const event of events) {
      // Only an event that mentions usage is parsed: the content chunks go through as text.
      if (!event.includes('"usage"') || !this.isUsageOnly(event)) out += `${event}\n\n`;
    }
    return out ? this.encoder.encode(out) : undefined;
  }

  /** Whatever is left at the end of the stream (an unterminated last event), as it came. */
  flush(): Uint8Array | undefined {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    return rest ? this.encoder.encode(rest) : undefined;
  }

  private isUsageOnly(event: string): boolean {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .join('\n');
    let parsed: { usage?: unknown; choices?: unknown } | null;
    try {
      parsed = JSON.parse(data);
    } catch {
      return false;
    }
    const usage = readUsage(parsed?.usage);
    if (usage) this.counted = this.onUsage(usage);
    return usage !== undefined && (!Array.isArray(parsed?.choices) || parsed.choices.length === 0);
  }
}

/** What the relay tells the exchange it belongs to. */
export interface RelayHooks {
  /** A piece arrived: the provider is still answering. */
  onChunk(): void;
  /** The provider reported the stream's usage; the end of the stream waits for this to settle. */
  onUsage(usage: TokenUsage): Promise<void>;
  /** The provider's side is over, however it ended (called once or more: it must be idempotent). */
  onEnd(): void;
  /** Whether the visitor went away (a broken-off stream is then not worth an error event). */
  visitorLeft(): boolean;
  log(line: string): void;
}

/**
 * The provider's stream, read only as fast as the client takes it. When the visitor leaves, the abort has already
 * cancelled the upstream request; the stream then just ends, rather than surfacing as an error nobody can receive.
 */
export function relayStream(body: AsyncIterator<Uint8Array>, hooks: RelayHooks): ReadableStream<Uint8Array> {
  const filter = new UsageFilter((usage) => hooks.onUsage(usage));
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Until a complete event arrives there is nothing to pass on; a pull must enqueue or close to be called again.
        for (;;) {
          const { done, value } = await body.next();
          if (done) {
            hooks.onEnd();
            const rest = filter.flush();
            if (rest) controller.enqueue(rest);
            controller.close();
            return;
          }
          hooks.onChunk();
          const events = filter.push(value);
          if (events) {
            // The page sees the end of a reply only once its tokens are counted: its next message meets the cap.
            await filter.counted;
            controller.enqueue(events);
            return;
          }
        }
      } catch (error) {
        hooks.onEnd();
        if (hooks.visitorLeft()) {
          controller.close();
          return;
        }
        hooks.log(`[llm-proxy] stream from the provider broke off (${(error as Error).name})`);
        // Said in the stream, as providers say a failure mid-stream, and the stream then ends properly. Erroring the
        // response instead would destroy the connection, and with it the last pieces still on their way out.
        controller.enqueue(STREAM_BROKE_OFF);
        controller.close();
      }
    },
    async cancel() {
      hooks.onEnd();
      await body.return?.();
    },
  });
}
