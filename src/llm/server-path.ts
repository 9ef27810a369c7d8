/**
 * A route of the page's own server (`/api/…`) under the build's BASE_PATH (Vite's `BASE_URL`, `/assistant/`), as the
 * server serves its routes: the chat's proxy, the votes and the handoff form alike.
 */
export function serverPath(path: string, base: string = import.meta.env.BASE_URL): string {
  return base.replace(/\/$/, '') + path;
}
