import { isIP } from 'node:net';
import type { SettingName } from '../../contract/settings.ts';
import { parseSourceList } from '../pages/pages.ts';

/**
 * Variables as read from `process.env` or Vite's `loadEnv`: only the names on the product's list can be read.
 */
export type Env = Partial<Record<SettingName, string>>;

// Each reader below returns `fallback` for an unset or blank variable. A bad value is added to `problems` (named, and
// quoted as given) and `fallback` is returned, so the caller can go on and report every bad variable at once.

/**
 * A signing secret: unset, or at least `minLength` characters with no white space (what `openssl rand -hex` of that
 * many bytes gives). A bad one is a problem that never repeats it.
 */
export function readSecret(env: Env, name: SettingName, problems: string[], minLength = 24): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (raw.length < minLength || /\s/.test(raw)) {
    problems.push(`${name} must be at least ${minLength} characters with no spaces (openssl rand -hex ${minLength})`);
    return undefined;
  }
  return raw;
}

/** A switch: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off` (unset is off). */
export function readFlag(env: Env, name: SettingName, problems: string[]): boolean {
  const value = env[name]?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  problems.push(`${name} must be 1 or 0 (got "${env[name]}")`);
  return false;
}

/** A whole number from `min` to `max`. */
export function readInteger(
  env: Env,
  name: SettingName,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  // Decimal digits only: Number() would also take `1e3`, `0x10` or `8.0`, which nobody writes on purpose.
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return value;
}

/** A CSP source list, as `FRAME_ANCESTORS` and `CSP_CONNECT_SRC` take it. */
export function readSourceList(env: Env, name: SettingName, fallback: string[], problems: string[]): string[] {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  try {
    return parseSourceList(raw, name);
  } catch (error) {
    problems.push((error as Error).message);
    return fallback;
  }
}

// An IP address or a DNS name: what `listen` can bind to.
const HOST_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

/** An address to listen on: an IP address or a host name, without scheme or port. */
export function readHost(env: Env, name: SettingName, fallback: string, problems: string[]): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (isIP(raw) === 0 && !HOST_PATTERN.test(raw)) {
    problems.push(`${name} must be an IP address or a host name such as 127.0.0.1 (got "${raw}")`);
    return fallback;
  }
  return raw;
}

/** Whether a URL's host name (IPv6 in brackets or not) names this machine. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
}

/** Whether an address given to the server is only reachable from this machine. */
export function isLoopbackHost(host: string): boolean {
  return isIP(host) !== 0 ? isLoopback(host) : host === 'localhost';
}
