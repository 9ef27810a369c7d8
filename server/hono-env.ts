// The types every room shares, and nothing else: this file sits under all of them and imports none.
import type { HttpBindings } from '@hono/node-server';

/**
 * Every server running the app is @hono/node-server's (`listen`, and `getRequestListener` in Vite's): each request
 * comes with Node's own request and response.
 */
export type ServerEnv = { Bindings: HttpBindings };

/**
 * Where chat requests go: an OpenAI-compatible provider holding the token, the built-in demo responder, or nowhere
 * (a direct-mode build, whose page calls its provider itself: the server then offers no chat endpoint).
 */
export type Upstream =
  | { kind: 'provider'; baseURL: string; apiKey: string; model: string }
  | { kind: 'demo' }
  | { kind: 'none' };
