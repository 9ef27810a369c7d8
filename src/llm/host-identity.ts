/**
 * The visitor's token from the host site (`AIAssistant.identify(token)` on the embed loader, the React component's
 * `identity`), once the loader has told the app (src/embed/host-page.ts): a JWT the site's backend signs, which each
 * request then carries as `identity` for the server to check (docs/actions.md). Unset everywhere else. In the app's
 * chunk (build/app-chunk.ts), which the embed's chunk and the request's share.
 */
export const hostIdentity: { current?: string } = {};

/** Longer than a visitor token ever is: a few hundred characters. */
export const MAX_IDENTITY_LENGTH = 8 * 1024;

/** Three base64url parts, the last (the signature) possibly empty: the shape of a JWT in its compact form. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/**
 * Takes what the loader said the site gave: a JWT-shaped string sets the token, `null`, `undefined` or `''` takes it
 * back (the visitor signed out); anything else is ignored, the token left as it was, with a word for the site's
 * developer in the console (never the value: it may be someone's token).
 */
export function setHostIdentity(token: unknown) {
  if (token === null || token === undefined || token === '') {
    hostIdentity.current = undefined;
  } else if (typeof token === 'string' && token.length <= MAX_IDENTITY_LENGTH && JWT_SHAPE.test(token)) {
    hostIdentity.current = token;
  } else {
    console.warn('AIAssistant.identify: the token is no JWT (three base64url parts, at most 8 KB); ignored.');
  }
}
