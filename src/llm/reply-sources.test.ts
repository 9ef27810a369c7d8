// @vitest-environment node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplySource } from '../../contract/llm';
import { INDEX_BUDGET, type Knowledge } from '../../server/knowledge/knowledge';
import { buildServerParts, type ServerParts } from '../../server/server-parts';
import { replyInput } from '../../testing/controllable-reply';
import { proxyHarness } from '../../testing/proxy-app';
import { readLlmConfig } from './llm-config';
import { requestReply } from './request-reply';

// The real openai client over real HTTP to the real proxy, with the site's pages configured, in front of the fake
// provider: the sources the page reads, streamed or whole, and none from a provider the page calls itself.
const { provider, start } = await proxyHarness();

const RETURNS = {
  n: 1,
  title: 'Returns',
  url: 'https://www.example.com/help/returns#returns',
  page: 'https://www.example.com/help/returns',
};
let dir: string;
let dataDir: string;
let knowledge: Knowledge;
let parts: ServerParts;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reply-sources-'));
  await writeFile(join(dir, 'returns.md'), '# Returns\n\nYou can return any garden tool within thirty days.\n');
  dataDir = await mkdtemp(join(tmpdir(), 'reply-sources-data-'));
  parts = buildServerParts(
    { store: { dataDir, refreshHours: 24, indexBudget: INDEX_BUDGET } },
    { sources: [{ path: dir, url: 'https://www.example.com/help/' }], log: () => undefined },
  );
  knowledge = parts.knowledge as Knowledge;
  await knowledge.ready;
});
afterAll(async () => {
  await parts.close();
  await rm(dir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

const config = (origin: string, stream: boolean, direct = false) =>
  readLlmConfig(
    {
      BASE_URL: '/',
      MODE: 'test',
      DEV: false,
      PROD: true,
      SSR: false,
      VITE_LLM_STREAM: String(stream),
      ...(direct ? { VITE_LLM_API_KEY: 'test-key-not-real', VITE_LLM_BASE_URL: provider.baseURL } : {}),
    },
    origin,
  );

async function ask(question: string, stream: boolean, origin: string, direct = false, language?: string) {
  const seen: ReplySource[][] = [];
  const pieces: string[] = [];
  const reply = await requestReply(
    replyInput(question, {
      onDelta: (piece) => pieces.push(piece),
      onSources: (sources) => seen.push(sources),
      ...(language ? { language } : {}),
    }),
    new AbortController().signal,
    config(origin, stream, direct),
  );
  return { reply, seen, pieces };
}

describe("the reply's sources, as the page reads them", () => {
  it.each([true, false])(
    'reads them before the reply (stream: %s), and none for a question not covered',
    async (stream) => {
      const { url } = await start({ knowledge });

      const covered = await ask('Can I return a garden tool?', stream, url);
      expect(covered.seen).toEqual([[RETURNS]]);
      expect(covered.reply).toBe('Hello from the fake provider');

      const offTopic = await ask('How do I bake sourdough bread?', stream, url);
      expect(offTopic.seen).toEqual([]);
    },
  );

  it('takes none from a provider the page calls itself (direct mode)', async () => {
    provider.respondWith({
      json: { choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' } }], sources: [RETURNS] },
    });
    const { seen, reply } = await ask('Can I return a garden tool?', false, 'http://page.example.test', true);
    expect(reply).toBe('Hi');
    expect(seen).toEqual([]);
  });

  // The served page's <html lang> is the language the server chose for the card (build/prerender-card.ts): the app
  // gives it to the machine, whose input the request reads.
  describe("with the card in the visitor's language", () => {
    it("sends it to the page's own server, whose retrieval asks for search words in the pages' language", async () => {
      provider.queue({ content: 'return garden tool' });
      const { url, logs } = await start({ knowledge });

      const { seen } = await ask('Wie kann ich ein Gartenwerkzeug zurückgeben?', false, url, false, 'de');

      expect(logs.join('\n')).toContain('search words asked (language)');
      expect(seen).toEqual([[RETURNS]]);
    });

    it('never sends it to a provider the page calls itself (direct mode)', async () => {
      await ask('Wie kann ich ein Gartenwerkzeug zurückgeben?', false, 'http://page.example.test', true, 'de');

      expect(provider.requests).toHaveLength(1);
      expect(provider.requests[0].body).not.toHaveProperty('language');
    });
  });
});
