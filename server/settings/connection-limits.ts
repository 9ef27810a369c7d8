// The connection limits: what `listen` enforces, read from `HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS` and
// `MAX_CONNECTIONS`. Here, under the server's top, so that the settings read them without importing `listen.ts`.
import { type Env, readInteger } from './env-values.ts';

/** What a client may hold: time to send its request, and a share of the process's connections. */
export interface ConnectionLimits {
  /** How long a client may take to send a request's headers (`server.headersTimeout`). */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, body included (`server.requestTimeout`); replies are not timed. */
  requestTimeoutMs: number;
  /** Connections open at once in this process (`server.maxConnections`); more are closed on arrival. 0: no cap. */
  maxConnections: number;
}

/**
 * Node's own defaults (300 s for a request, 60 s for its headers, no cap) let a client that trickles its bytes hold a
 * connection for minutes. A chat request is small, so 15 s is ample; a reverse proxy that buffers request bodies takes
 * even that wait off the server.
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  maxConnections: 1000,
};

/** `HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS` and `MAX_CONNECTIONS`. */
export function connectionLimits(env: Env, problems: string[]): ConnectionLimits {
  const limits: ConnectionLimits = {
    headersTimeoutMs: readInteger(
      env,
      'HEADERS_TIMEOUT_MS',
      DEFAULT_CONNECTION_LIMITS.headersTimeoutMs,
      1000,
      600_000,
      problems,
    ),
    requestTimeoutMs: readInteger(
      env,
      'REQUEST_TIMEOUT_MS',
      DEFAULT_CONNECTION_LIMITS.requestTimeoutMs,
      1000,
      600_000,
      problems,
    ),
    maxConnections: readInteger(
      env,
      'MAX_CONNECTIONS',
      DEFAULT_CONNECTION_LIMITS.maxConnections,
      0,
      1_000_000,
      problems,
    ),
  };
  // The headers are part of the request: a longer allowance for them than for the whole request would never apply.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not be longer than REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}
