import type { PageContext } from '../../contract/llm';

/**
 * With the site's `page_context`, the embed's host page, once the loader has named it (src/embed/host-page.ts): each
 * request then carries it as `page_context`, for the server to check and quote to the model. Unset everywhere else.
 * In the app's chunk (build/app-chunk.ts), which the embed's chunk and the request's share.
 */
export const hostPageContext: {
  current?: PageContext;
  /**
   * The visitor's token from the host site (`AIAssistant.identify(token)` on the loader, the React component's
   * `identity`), once the loader has told the app (host-page.ts checks its shape): a JWT the site's backend signs,
   * which each request then carries as `identity` for the server to check (docs/actions.md). Beside the page here, in
   * one small object of the app's chunk, so that the start-up JavaScript carries nothing more of it.
   */
  identity?: string;
} = {};
