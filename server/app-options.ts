import type { ChatOptions } from './chat/chat.ts';
import type { Handoff } from './handoff/handoff.ts';
import type { PageOptions } from './pages/pages.ts';
import type { Traces } from './traces/traces.ts';

/**
 * Everything the app does, decided by its caller (nothing in the app reads `process.env`): each room's options, from
 * the room that reads them, and the few the app itself reads.
 */
export interface AppOptions extends ChatOptions, PageOptions {
  /** "Contact a person" (server/handoff/): `GET`/`POST /api/handoff`; unset, none. */
  handoff?: Handoff;
  /** `OWNER_TOKEN`: the bearer token of `GET /api/stats` and the owner's page; unset, both answer 404. */
  ownerToken?: string;
  /** The sub-path everything is served under (`BASE_PATH`, e.g. `/assistant`); empty: the root. */
  basePath?: string;
  /** OpenTelemetry traces (`OTEL_EXPORTER_OTLP_ENDPOINT`, server/traces/): a span per request, model call and retrieval. */
  traces?: Traces;
  /** One line per proxied request and per problem; never message contents or the token. */
  log?: (line: string) => void;
}
