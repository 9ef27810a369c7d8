import { DEFAULT_SLOW_MS, DEFAULT_TIMEOUT_MS } from '../../contract/llm';

// Timers take whole milliseconds up to 2^31 - 1: past that a browser's setTimeout fires at once, and a fraction or an
// overflow makes AbortSignal.timeout throw (Node) or time out at once, so every request would fail.
const MAX_TIMER_MS = 2_147_483_647;

function timerMs(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 && parsed <= MAX_TIMER_MS ? parsed : fallback;
}

/** The machine's delays: the reply's deadline, and when the visitor is told the model is still working. */
export interface ReplyTimers {
  /** The reply's deadline: to the first piece (or the whole reply when not streamed), then between pieces. */
  timeoutMs: number;
  /** How long without a first piece before the visitor is told the model is still working. */
  slowMs: number;
}

/**
 * The reply's deadline and slow hint from the build-time `VITE_LLM_TIMEOUT_MS` and `VITE_LLM_SLOW_MS`: all that
 * start-up needs of the configuration (the rest, llm-config.ts, is read with the request's chunk).
 */
export function readReplyTimers(env: ImportMetaEnv): ReplyTimers {
  return {
    timeoutMs: timerMs(env.VITE_LLM_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    slowMs: timerMs(env.VITE_LLM_SLOW_MS, DEFAULT_SLOW_MS),
  };
}
