import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit as UndiciInit } from 'undici';

// Where a crawl's connections go. Fetch would resolve the site's name at each connection and go wherever it points:
// a name that resolves first to the site, then to an address inside the server's network (DNS rebinding), would have
// the crawler read internal pages and index them. The crawler resolves the name itself, checks the address, and
// connects to exactly that address.

/** Resolves a name to its addresses (the system's resolver; a test gives its own). */
export type Resolve = (host: string) => Promise<readonly LookupAddress[]>;

const systemResolve: Resolve = (host) => lookup(host, { all: true, verbatim: true });

/** Addresses of the machine itself or of a private network: unspecified, loopback, private, link-local, unique-local. */
const INTERNAL = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  INTERNAL.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  INTERNAL.addSubnet(prefix, bits, 'ipv6');

/** Whether `address` is internal; an IPv4 address mapped into IPv6 (`::ffff:127.0.0.1`) is checked as IPv4. */
export function isInternal(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A crawl's fetch, and the end of its connections. */
export interface SiteFetch {
  fetch(url: string, init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The connections of one crawl of `origin`: every one resolves the name again and connects to the address it checked.
 * An internal address is refused, unless it is the site's own (its host, or what its name resolved to at the crawl's
 * first connection: an intranet site, or a test on 127.0.0.1), and then only those: a public site's name that turns internal, or an internal one that turns to another, reaches nothing.
 * Close them when the crawl ends.
 */
export function siteFetch(origin: string, resolve: Resolve = systemResolve): SiteFetch {
  // An address as host is the site's own, and is never looked up; a name's are those it first resolves to (both of
  // `localhost`'s, ::1 and 127.0.0.1).
  const literal = new URL(origin).hostname.replace(/^\[|\]$/g, '');
  let own: Set<string> | undefined = isIP(literal) === 0 ? undefined : new Set([literal]);
  const allowed = (address: string) => !isInternal(address) || own?.has(address) === true;
  const pinned: LookupFunction = (host, options, callback) => {
    resolve(host).then(
      (found) => {
        own ??= new Set(found.map(({ address }) => address));
        const usable = found.filter(({ address }) => allowed(address));
        if (usable.length === 0) {
          const refused = found.map(({ address }) => address).join(', ') || 'nothing';
          const reason = `${host} resolves to ${refused}, an internal address it may not reach`;
          callback(Object.assign(new Error(reason), { code: 'EINTERNAL' }), '', 0);
        } else if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
  const dispatcher = new Agent({ connect: { lookup: pinned } });
  return {
    // undici's own fetch: the runtime's may be another undici version, which takes no dispatcher of this one.
    fetch: async (url, init) => (await fetch(url, { ...init, dispatcher } as UndiciInit)) as unknown as Response,
    close: () => dispatcher.close(),
  };
}
