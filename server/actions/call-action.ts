// One call to the owner's API for an action, with inputs already checked (tool-schema.ts). Every way it can go wrong
// is a short reason code, never a throw: the model is told the action failed, and the conversation goes on.
//
// Where it goes: the url is the owner's own configuration, read at start-up, so it is trusted as written, loopback
// included (an owner's API on the same host is common, and the tests' is there). The crawl's guard against internal
// addresses and DNS rebinding (server/knowledge/sources/site-address.ts) is for addresses found on the web; here no
// input can choose the host: placeholders are refused in it (settings/config-actions.ts), each value is one encoded
// segment, and the filled address must keep the declared origin.
import { createHmac } from 'node:crypto';
import { type Action, type ActionInputs, placeholdersOf } from './action-types.ts';

/** How long a call may take, answer included. */
export const ACTION_TIMEOUT_MS = 5_000;
/** The largest answer read. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export type CallFailure =
  | 'invalid_input'
  | 'no_identity'
  | 'timeout'
  | 'unreachable'
  | 'redirect'
  | 'http_error'
  | 'too_large'
  | 'not_json';

export type CallResult = { ok: true; result: unknown } | { ok: false; reason: CallFailure; status?: number };

export interface CallOptions {
  /** `ACTIONS_SECRET`: signs the call (`X-Assistant-Signature`). */
  secret?: string;
  /** The host page's visitor token, already verified: sent as `Authorization` when the action needs identity. */
  visitorToken?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * The action's address with each placeholder filled by its input as one encoded segment (`/`, `?`, `#` are escaped);
 * undefined when a value would not stay one (empty, `.` or `..`, which URL parsing takes as the folder or its parent,
 * even encoded) or the result leaves the declared origin.
 */
export function fillUrl(action: Action, inputs: ActionInputs): string | undefined {
  const values = placeholdersOf(action.url).map((name) => String(inputs[name] ?? ''));
  if (values.some((value) => value === '' || value === '.' || value === '..')) return undefined;
  const filled = action.url.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(inputs[name])),
  );
  const url = URL.parse(filled);
  const declared = URL.parse(action.url.replace(/\{[A-Za-z0-9_]+\}/g, 'x'));
  return url && declared && url.origin === declared.origin ? url.href : undefined;
}

/** `sha256=<hex HMAC-SHA256 of method, "\n", url, "\n", body>`: what the owner's API recomputes to trust a call. */
export const signatureOf = (secret: string, method: string, url: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(`${method}\n${url}\n${body}`).digest('hex')}`;

/** The answer's body, read until `maxBytes`; undefined past it (the rest is never read). */
async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes || !response.body) {
    await response.body?.cancel();
    return declared > maxBytes ? undefined : Buffer.alloc(0);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks);
}

/** Builds the request: the address, the body (a POST's inputs as JSON) and the headers. */
function requestFor(action: Action, inputs: ActionInputs, url: string, options: CallOptions): RequestInit {
  const body = action.method === 'POST' ? JSON.stringify(inputs) : '';
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Assistant-Action': action.name };
  if (action.method === 'POST') headers['Content-Type'] = 'application/json';
  if (options.secret) headers['X-Assistant-Signature'] = signatureOf(options.secret, action.method, url, body);
  if (action.identity === 'required') headers.Authorization = `Bearer ${options.visitorToken}`;
  return { method: action.method, headers, redirect: 'manual', ...(body ? { body } : {}) };
}

/** Calls `action` with checked `inputs`: its JSON answer, or why there is none. Never throws. */
export async function callAction(action: Action, inputs: ActionInputs, options: CallOptions = {}): Promise<CallResult> {
  const url = fillUrl(action, inputs);
  if (!url) return { ok: false, reason: 'invalid_input' };
  if (action.identity === 'required' && !options.visitorToken) return { ok: false, reason: 'no_identity' };
  const signal = AbortSignal.timeout(options.timeoutMs ?? ACTION_TIMEOUT_MS);
  try {
    const response = await fetch(url, { ...requestFor(action, inputs, url, options), signal });
    // A redirect is not followed: the owner's API answers at the address declared, or the call failed.
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      return { ok: false, reason: 'redirect', status: response.status };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, reason: 'http_error', status: response.status };
    }
    const body = await readCapped(response, options.maxBytes ?? MAX_ANSWER_BYTES);
    if (!body) return { ok: false, reason: 'too_large' };
    try {
      return { ok: true, result: JSON.parse(body.toString('utf8')) };
    } catch {
      return { ok: false, reason: 'not_json' };
    }
  } catch {
    return { ok: false, reason: signal.aborted ? 'timeout' : 'unreachable' };
  }
}
