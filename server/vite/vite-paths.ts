// Which requests the Vite servers (dev and preview) hand to the app rather than serve themselves: see vite-plugin.ts.
import { OWNER_PAGE_FILE } from '../../contract/owner.ts';
import { PAGE_FILE } from '../pages/pages.ts';

/**
 * What the app answers itself in every mode, as `npm start` does: the API (the proxy under `PROXY_BASE_PATH`, the votes
 * and the owner's stats, a JSON 404 for the rest), and the health checks.
 */
export function isServerPath(path: string): boolean {
  return path.startsWith('/api/') || path === '/healthz' || path === '/readyz';
}

/**
 * The page itself (index.html or a language's page), which preview serves filled like `npm start`, and the paths that
 * are no file (which `npm start` answers with its 404 page).
 */
export function isPagePath(path: string): boolean {
  const last = path.split('/').pop() ?? '';
  return (
    PAGE_FILE.test(path) ||
    path.startsWith(OWNER_PAGE_FILE) ||
    (!last.includes('.') && !path.startsWith('/api/') && !path.startsWith('/@'))
  );
}
