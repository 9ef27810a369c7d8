import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { Action } from '../server/actions/actions.ts';
import { INDEX_BUDGET } from '../server/knowledge/knowledge.ts';
import { buildServerParts, type PartsSettings, type ServerParts } from '../server/server-parts.ts';
import { DEFAULT_ASSISTANT_CONFIG } from '../server/settings/settings.ts';
import type { FakeProvider } from './fake-provider.ts';
import { TOKEN } from './proxy-app.ts';

// The server's parts for the tests of the site's actions (the chat's tools, the Confirm): the owner's loop, its counts
// in a folder of its own, the actions in front of the fake provider, and the site's pages when a test gives some.

/** The site's secret: the confirmation tokens' key is drawn from it (`confirmTokens(FEEDBACK_SECRET)` makes theirs). */
export const FEEDBACK_SECRET = 'test-feedback-secret-0123456789';
/** The host page's visitor tokens are signed with it (HS256). */
export const IDENTITY_SECRET = 'test-identity-secret-0123456789abcdef';

/** A visitor token as the host site's backend signs one: `sub`, five minutes. */
export const visitorToken = (sub = 'visitor-1') =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(IDENTITY_SECRET));

export interface ActionParts {
  parts: ServerParts;
  close(): Promise<void>;
}

/** `pages`: file name → Markdown, the site's pages (indexed before this resolves); `callSecret`: `ACTIONS_SECRET`. */
export async function startActionParts(
  provider: FakeProvider,
  actions: Action[],
  { pages, callSecret }: { pages?: Record<string, string>; callSecret?: string } = {},
): Promise<ActionParts> {
  const dir = await mkdtemp(join(tmpdir(), 'action-parts-'));
  for (const [name, text] of Object.entries(pages ?? {})) await writeFile(join(dir, name), text);
  const proxy = { upstream: { kind: 'provider', baseURL: provider.baseURL, apiKey: TOKEN, model: 'm' } };
  const parts = buildServerParts(
    {
      store: { dataDir: dir, refreshHours: 24, indexBudget: INDEX_BUDGET },
      feedbackSecret: FEEDBACK_SECRET,
      proxy: proxy as PartsSettings['proxy'],
      actions: { secret: callSecret, identitySecret: IDENTITY_SECRET },
    },
    {
      ...(pages ? { sources: [{ path: dir, url: 'https://www.example.com/help/' }] } : {}),
      site: { page: DEFAULT_ASSISTANT_CONFIG.page, actions },
      log: () => undefined,
    },
  );
  await parts.knowledge?.ready;
  return {
    parts,
    close: async () => {
      await parts.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
