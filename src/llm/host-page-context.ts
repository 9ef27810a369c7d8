import type { PageContext } from '../../contract/llm';

/**
 * With the site's `page_context`, the embed's host page, once the loader has named it (src/embed/host-page.ts): each
 * request then carries it as `page_context`, for the server to check and quote to the model. Unset everywhere else.
 * In the app's chunk (build/app-chunk.ts), which the embed's chunk and the request's share.
 */
export const hostPageContext: { current?: PageContext } = {};
