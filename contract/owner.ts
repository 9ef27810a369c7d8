// The owner's counts and page: plain constants shared by the server, the build and the owner's page. Apart from
// contract/feedback.ts, which the visitor's lazy chunk imports: a module both import would become a chunk of its own,
// one more request for each. No imports: every side may use it.

/** `GET ?days=30` with `Authorization: Bearer <OWNER_TOKEN>`: the owner's counts (`Stats`, contract/feedback.ts). */
export const STATS_PATH = '/api/stats';
/** The owner's page, a page of its own (its own entry, none of it in the visitor's start-up budget). */
export const OWNER_PAGE_PATH = '/owner';
/** The file the build writes for it (owner.html): served only at {@link OWNER_PAGE_PATH}, and only with a token set. */
export const OWNER_PAGE_FILE = '/owner.html';
