/**
 * The visitor's token from the host site (`AIAssistant.identify(token)` on the embed loader, the React component's
 * `identity`), once the loader has told the app (src/embed/host-page.ts, which checks its shape): a JWT the site's
 * backend signs, which each request then carries as `identity` for the server to check (docs/actions.md). Unset
 * everywhere else. In the app's chunk (build/app-chunk.ts), which the embed's chunk and the request's share: only this
 * object, so that the start-up JavaScript carries nothing more of it.
 */
export const hostIdentity: { current?: string } = {};
