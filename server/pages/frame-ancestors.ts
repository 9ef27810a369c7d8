import { oncePerWindow } from '../once-per-window.ts';
import { frameAncestorSources } from './security-headers.ts';

/** How often one refused origin is logged: once is enough to be seen, and a busy host page cannot fill the log. */
export const REFUSED_FRAME_LOG_INTERVAL_MS = 60 * 60 * 1000;
/** The most origins remembered at once, so that made-up `?embed=` values cannot grow the memory without end. */
const MAX_REMEMBERED = 1000;

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * Whether a CSP `frame-ancestors` source list lets the page at `origin` frame this site, whose own host (`host:port`,
 * as the request's `Host` header names it) `'self'` stands for. As the browser reads the list (CSP 3, "does url match
 * expression"): a scheme alone, `*`, and host sources with an optional scheme, `*.` or `*` and port; `http:` also
 * allows `https:`. `'self'` is matched by host and port only, as the scheme may be a TLS proxy's.
 */
export function frameAncestorAllows(sources: readonly string[], origin: string, selfHost: string): boolean {
  const url = new URL(origin);
  const upgraded = (scheme: string) => url.protocol === scheme || (scheme === 'http:' && url.protocol === 'https:');
  return sources.some((source) => {
    if (source === "'self'") return url.host === selfHost.toLowerCase();
    if (source === '*') return url.protocol === 'http:' || url.protocol === 'https:';
    if (/^[a-z][a-z0-9+.-]*:$/i.test(source)) return upgraded(source.toLowerCase());
    const parts = /^(?:([a-z][a-z0-9+.-]*:)\/\/)?(\*\.)?([^:/]+)(?::(\d+|\*))?\/?$/i.exec(source);
    if (!parts) return false;
    const [, scheme, wildcard, host, port] = parts;
    if (scheme ? !upgraded(scheme.toLowerCase()) : !upgraded('http:')) return false;
    const hostname = host.toLowerCase();
    const hostMatches =
      hostname === '*' || (wildcard ? url.hostname.endsWith(`.${hostname}`) : url.hostname === hostname);
    if (!hostMatches) return false;
    const actual = url.port || DEFAULT_PORTS[url.protocol];
    return port === '*' || actual === (port ?? DEFAULT_PORTS[url.protocol]);
  });
}

/**
 * Says in the log when a frame's request names a host page (the loader's `?embed=<origin>`, contract/embed.ts) that
 * `FRAME_ANCESTORS` does not allow: the browser then refuses the frame, and the visitor sees its broken-frame icon,
 * while nothing else would tell the site's owner. Each origin is logged at most once per `intervalMs`. Returns the check,
 * to call with the request's `?embed=` value and its `Host` header.
 */
export function refusedFrameNotice(
  frameAncestors: readonly string[],
  log: (line: string) => void,
  { now = Date.now, intervalMs = REFUSED_FRAME_LOG_INTERVAL_MS } = {},
): (embed: string | null | undefined, selfHost: string | undefined) => void {
  const sources = frameAncestorSources(frameAncestors);
  const firstInInterval = oncePerWindow(intervalMs, now, MAX_REMEMBERED);
  return (embed, selfHost) => {
    if (!embed || !selfHost) return;
    let origin: string;
    try {
      origin = new URL(embed).origin;
    } catch {
      return;
    }
    // Only a real origin is logged: nothing the request wrote reaches the log but a parsed scheme, host and port.
    if (origin === 'null' || frameAncestorAllows(sources, origin, selfHost)) return;
    if (!firstInInterval(origin)) return;
    log(
      `[frame] ${origin} embeds the chat, but FRAME_ANCESTORS (${sources.join(' ')}) does not allow it: its visitors ` +
        `see a refused frame. To allow it, add ${origin} to FRAME_ANCESTORS and restart.`,
    );
  };
}
