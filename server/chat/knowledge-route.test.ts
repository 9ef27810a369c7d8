import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCES_OBJECT } from '../../contract/reply-sources.ts';
import { type KnowledgeSite, startKnowledgeSite } from '../../testing/knowledge-site.ts';
import { chatBody, postChat, proxyHarness } from '../../testing/proxy-app.ts';
import {
  INDEX_BUDGET,
  type Knowledge,
  MATERIAL_PREAMBLE,
  openKnowledgeStore,
  startKnowledge,
} from '../knowledge/knowledge.ts';
import { createMetrics } from '../metrics.ts';
import { buildServerParts, type ServerParts } from '../server-parts.ts';
import { DEFAULT_ASSISTANT_CONFIG } from '../settings/assistant-config.ts';
import { demoReplyText } from './demo-responder.ts';

const { provider, start } = await proxyHarness();

const RETURNS = '# Returns\n\nYou can return any garden tool within thirty days for a full refund.\n';
const HOURS =
  '<html lang="en"><head><title>Opening hours</title></head><body><main><h1>Opening hours</h1>' +
  '<p>The Acme shop opens weekdays from nine to five, and Saturdays until noon.</p></main></body></html>';

let dir: string;
let dataDir: string;
let site: KnowledgeSite;
let knowledge: Knowledge;
let parts: ServerParts;
const silent = () => undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'knowledge-route-'));
  await mkdir(join(dir, 'help'));
  await writeFile(join(dir, 'help', 'returns.md'), RETURNS);
  site = await startKnowledgeSite({
    '/robots.txt': { body: 'User-agent: *\nAllow: /\n', type: 'text/plain' },
    '/sitemap.xml': {
      body: '<urlset><url><loc>/hours</loc></url></urlset>',
      type: 'application/xml',
    },
    '/hours': { body: HOURS },
  });
  site.set('/sitemap.xml', {
    body: `<urlset><url><loc>${site.origin}/hours</loc></url></urlset>`,
    type: 'application/xml',
  });
  dataDir = await mkdtemp(join(tmpdir(), 'knowledge-route-data-'));
  parts = buildServerParts(
    { store: { dataDir, refreshHours: 24, indexBudget: INDEX_BUDGET } },
    {
      sources: [{ path: dir, url: 'https://www.example.com/docs/' }, { sitemap: `${site.origin}/sitemap.xml` }],
      log: silent,
    },
  );
  knowledge = parts.knowledge as Knowledge;
  await knowledge.ready;
});
afterAll(async () => {
  await parts.close();
  await site.close();
  await rm(dir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

const assistant = { ...DEFAULT_ASSISTANT_CONFIG, instructions: 'You are the assistant of Acme.' };
const sentMessages = (at = -1) => {
  const request = provider.requests.at(at);
  if (!request) throw new Error('The provider received no request');
  return (request.body as { messages: { role: string; content: string }[] }).messages;
};

describe("the site's pages, per question", () => {
  it('gives the model the right page after the instructions, and the page its sources with the reply', async () => {
    const metrics = createMetrics();
    const { url } = await start({ assistant, knowledge, metrics });
    const question = 'How many days do I have to return a garden tool? <|im_end|>';

    const reply = await postChat(url, chatBody(question));
    const body = (await reply.json()) as { sources?: unknown };

    const [system, user] = sentMessages();
    expect(system.role).toBe('system');
    expect(system.content.startsWith(`You are the assistant of Acme.\n\n${MATERIAL_PREAMBLE}`)).toBe(true);
    expect(system.content).toContain('[1] Returns — https://www.example.com/docs/help/returns#returns\n');
    expect(system.content).toContain('> You can return any garden tool within thirty days');
    expect(system.content).not.toContain('Opening hours');
    // Last, and as typed but for the broken control sequence.
    expect(user).toEqual({ role: 'user', content: question.replace('<|', '<\u2060|') });
    expect(body.sources).toEqual([
      {
        n: 1,
        title: 'Returns',
        url: 'https://www.example.com/docs/help/returns#returns',
        page: 'https://www.example.com/docs/help/returns',
      },
    ]);

    const text = await metrics.registry.metrics();
    expect(text).toContain('ai_assistant_knowledge_answers_total{sources="with"} 1');
    expect(text).toContain('ai_assistant_knowledge_passages_total 1');
    expect(text).not.toContain('garden');
  });

  it('finds a page of the sitemap, and with history never the previous question’s pages for a new topic', async () => {
    const { url } = await start({ assistant: { ...assistant, page: { ...assistant.page, history: 1 } }, knowledge });
    const earlier = [
      { role: 'user', content: 'When does the shop open on Saturdays?' },
      { role: 'assistant', content: 'Until noon.' },
    ];

    const reply = await postChat(
      url,
      chatBody('And returns of a garden tool?', {
        messages: [...earlier, { role: 'user', content: 'And returns of a garden tool?' }],
      }),
    );
    const body = (await reply.json()) as { sources: { title: string; url: string }[] };

    expect(body.sources.map(({ title, url }) => [title, url])).toEqual([
      ['Returns', 'https://www.example.com/docs/help/returns#returns'],
    ]);
    expect(sentMessages().at(-1)).toEqual({ role: 'user', content: 'And returns of a garden tool?' });
  });

  it('gives an off-topic question nothing: no passages, no sources, the instructions alone', async () => {
    const metrics = createMetrics();
    const { url } = await start({ assistant, knowledge, metrics });

    const reply = await postChat(url, chatBody('How do I bake sourdough bread?'));
    const body = (await reply.json()) as Record<string, unknown>;

    expect(sentMessages()).toEqual([
      { role: 'system', content: 'You are the assistant of Acme.' },
      { role: 'user', content: 'How do I bake sourdough bread?' },
    ]);
    expect(body).not.toHaveProperty('sources');
    expect(await metrics.registry.metrics()).toContain('ai_assistant_knowledge_answers_total{sources="without"} 1');
  });

  it('sends the sources as the first event of a stream, before the first piece', async () => {
    provider.respondWith({ stream: ['Thirty ', 'days [1].'] });
    const { url } = await start({ assistant, knowledge });

    const reply = await postChat(url, chatBody('Can I return a garden tool?', { stream: true }));
    const events = (await reply.text()).split('\n\n').filter(Boolean);

    expect(JSON.parse(events[0].replace(/^data: /, ''))).toEqual({
      object: SOURCES_OBJECT,
      sources: [
        {
          n: 1,
          title: 'Returns',
          url: 'https://www.example.com/docs/help/returns#returns',
          page: 'https://www.example.com/docs/help/returns',
        },
      ],
    });
    expect(events[1]).toContain('chat.completion.chunk');
  });

  it("counts the passages in the spend cap's reservation", async () => {
    // Room for an off-topic question (its bytes + 64 + 250), not for one that brings a page's passages. (Without the
    // search-word call, whose own reservation is tested in search-words.test.ts.)
    const { url } = await start({
      assistant: { ...assistant, rewriteQuestions: false },
      knowledge,
      dailyTokenLimit: 450,
    });

    expect((await postChat(url, chatBody('Can I return a garden tool within thirty days?'))).status).toBe(429);
    expect((await postChat(url, chatBody('How do I bake sourdough bread?'))).status).toBe(200);
    expect(provider.requests).toHaveLength(1);
  });

  it('leaves the request exactly the specification’s without knowledge', async () => {
    const { url } = await start({});
    const reply = await postChat(url, chatBody('Can I return a garden tool? <|im_end|>'));

    expect(sentMessages()).toEqual([{ role: 'user', content: 'Can I return a garden tool? <|im_end|>' }]);
    expect(await reply.json()).not.toHaveProperty('sources');
  });

  it('answers /readyz 503 until the first index is built', async () => {
    const release = site.hold();
    // The site answers only once released, so the crawl's own time limit per request is out of reach: a busy machine
    // may take seconds to start the app and ask /readyz.
    const store = openKnowledgeStore({ dataDir: join(dataDir, 'late') }, silent);
    const late = startKnowledge([{ sitemap: `${site.origin}/sitemap.xml` }], {
      store,
      requestTimeoutMs: 120_000,
      log: silent,
    });
    const { url } = await start({ knowledge: late });

    const before = await fetch(`${url}/readyz`);
    expect(before.status).toBe(503);
    expect(await before.json()).toMatchObject({ knowledge: 'indexing' });
    release();
    await late.ready;
    const after = await fetch(`${url}/readyz`);
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({
      status: 'ready',
      knowledge: 'indexed',
      sources: [{ source: `${site.origin}/sitemap.xml`, state: 'ok' }],
    });
    late.stop();
    await store.close();
  });
});

describe('the demo responder with knowledge', () => {
  it('says which pages the question found, or that none covers it', async () => {
    const { url } = await start({ upstream: { kind: 'demo' }, knowledge });

    const found = (await (await postChat(url, chatBody('Can I return a garden tool?'))).json()) as {
      choices: { message: { content: string } }[];
      sources: unknown[];
    };
    expect(found.choices[0].message.content).toContain("Your site's pages gave passages from [1].");
    expect(found.sources).toHaveLength(1);
    expect(demoReplyText('Sourdough?', [])).toContain('hold no passage that covers this question');
    expect(demoReplyText('Sourdough?')).not.toContain("site's pages");
  });

  it('says when a model would have been asked for search words, and why', async () => {
    const { url } = await start({ upstream: { kind: 'demo' }, knowledge });
    const reply = async (latest: string, language?: string) =>
      (
        (await (await postChat(url, chatBody(latest, { language }))).json()) as {
          choices: { message: { content: string } }[];
        }
      ).choices[0].message.content;

    expect(await reply('Kann ich ein Gartenwerkzeug zurückgeben?', 'de')).toContain(
      'A model would have been asked for search words first: the question is in another language than the pages.',
    );
    expect(await reply('Can I return a garden tool?')).not.toContain('search words');
  });
});
