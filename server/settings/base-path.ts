import { getPath } from 'hono/utils/url';
import type { Env } from './env-values.ts';

/**
 * `BASE_PATH`: the sub-path the whole service lives under (`/assistant` for `https://www.example.com/assistant/`), read
 * by the build (Vite's `base`) and by the server. Segments of URL-safe characters, each after one slash, none of them
 * `.` or `..`: no trailing slash, no query, no fragment. Unset or empty: the root, as before.
 */
const CLEAN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[\w.~-]+)+$/;

export function readBasePath(env: Env, problems: string[]): string {
  const raw = env.BASE_PATH ?? '';
  if (raw === '' || CLEAN_PATH.test(raw)) return raw;
  problems.push(
    `BASE_PATH must be a clean path such as /assistant: one leading slash, no trailing slash, no "." or ".." segment, no query (got "${raw}")`,
  );
  return '';
}

/** What no route matches: a request outside the base path, which every route of the app then answers with a 404. */
export const OUTSIDE_BASE_PATH = '/\0outside-base-path';

/**
 * Hono's `getPath` for an app under `basePath`: the path inside it (`/assistant/embed.js` is `/embed.js`, `/assistant`
 * is `/`), so that every route, header rule and static file is written once, as at the root.
 */
export function pathUnder(basePath: string): ((request: Request) => string) | undefined {
  if (!basePath) return undefined;
  return (request) => {
    const path = getPath(request);
    if (path === basePath) return '/';
    return path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : OUTSIDE_BASE_PATH;
  };
}
