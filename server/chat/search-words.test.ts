import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, postChat, proxyHarness } from '../../testing/proxy-app.ts';
import { type Knowledge, type KnowledgeStore, openKnowledgeStore, startKnowledge } from '../knowledge/knowledge.ts';
import { DEFAULT_ASSISTANT_CONFIG } from '../settings/assistant-config.ts';
import { askSearchWords, SEARCH_WORDS_LIMITS, searchWordsRequest } from './search-words.ts';

const { provider, start } = await proxyHarness();

/** Search words no visitor would type, so the test sees exactly where they go (and where they never go). */
const WORDS = 'return refund zqxwords';

let dir: string;
let dataDir: string;
let store: KnowledgeStore;
let knowledge: Knowledge;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'search-words-'));
  dataDir = await mkdtemp(join(tmpdir(), 'search-words-store-'));
  store = openKnowledgeStore({ dataDir }, () => {});
  await writeFile(join(dir, 'returns.md'), '# Returns\n\nYou can return any item within thirty days for a refund.\n');
  await writeFile(join(dir, 'contact.md'), '# Contact\n\nCall us on 0123 456 789 from Tuesday to Saturday.\n');
  knowledge = startKnowledge([{ path: dir, url: 'https://shop.example.com/' }], { store, log: () => {} });
  await knowledge.ready;
});
afterAll(async () => {
  knowledge.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

const assistant = { ...DEFAULT_ASSISTANT_CONFIG, page: { ...DEFAULT_ASSISTANT_CONFIG.page, history: 1 } };
type Sent = { messages: { role: string; content: string }[]; max_tokens: number; temperature: number };
const sent = () => provider.requests.map((request) => request.body as Sent);
const GERMAN = 'Wie kann ich etwas zurückgeben?';

describe('the search-word call', () => {
  it('asks once, bounded, for a question in another language, and finds the English page with the words', async () => {
    provider.queue({ content: WORDS });
    const { url } = await start({ assistant, knowledge });

    const reply = await postChat(url, chatBody(GERMAN, { language: 'de' }));
    const text = await reply.text();

    expect(reply.status).toBe(200);
    const [search, chat] = sent();
    expect(sent()).toHaveLength(2);
    expect(search.max_tokens).toBeLessThanOrEqual(60);
    expect(search.temperature).toBe(0);
    expect(search.messages.at(-1)?.content).toContain(GERMAN);
    // The words find the page; they are never shown, nor put into the prompt; the message stays last, as typed.
    expect(JSON.parse(text).sources).toEqual([
      {
        n: 1,
        title: 'Returns',
        url: 'https://shop.example.com/returns#returns',
        page: 'https://shop.example.com/returns',
      },
    ]);
    expect(text).not.toContain('zqxwords');
    expect(JSON.stringify(chat.messages)).not.toContain('zqxwords');
    expect(chat.messages.at(-1)).toEqual({ role: 'user', content: GERMAN });
    expect(chat).not.toHaveProperty('language');
  });

  it('gives a follow-up the question before it, and finds its page', async () => {
    provider.queue({ content: 'refund days' });
    const { url } = await start({ assistant, knowledge });
    const messages = [
      { role: 'user', content: 'Can I return a spade?' },
      { role: 'assistant', content: 'Yes.' },
      { role: 'user', content: 'How long do I have?' },
    ];

    const reply = await postChat(url, { ...chatBody(), messages });

    expect(sent()[0].messages.at(-1)?.content).toBe(
      'Previous question: Can I return a spade?\nQuestion: How long do I have?',
    );
    expect((await reply.json()).sources).toEqual([
      {
        n: 1,
        title: 'Returns',
        url: 'https://shop.example.com/returns#returns',
        page: 'https://shop.example.com/returns',
      },
    ]);
  });

  it.each([
    ['fails', { status: 500 }],
    ['answers nothing', { content: '' }],
  ] as const)('falls back on the question as typed when the call %s, and the reply still comes', async (_, failure) => {
    provider.queue(failure);
    const { url, logs } = await start({ assistant, knowledge });

    const reply = await postChat(url, chatBody(GERMAN, { language: 'de' }));

    expect(reply.status).toBe(200);
    expect((await reply.json()).choices[0].message.content).toBeTruthy();
    expect(sent()).toHaveLength(2);
    expect(logs.join('\n')).toContain('search words asked (language): none came');
  });

  it(`gives up after its own ${SEARCH_WORDS_LIMITS.timeoutMs} ms, and the reply still comes`, async () => {
    provider.queue({ hang: true });
    const { url } = await start({ assistant, knowledge, timeoutMs: 20_000 });

    const reply = await postChat(url, chatBody(GERMAN, { language: 'de' }));

    expect(reply.status).toBe(200);
    expect(provider.requests[0].aborted).toBe(true);
    expect(sent()).toHaveLength(2);
  }, 20_000);

  it('keeps its time limit through garbage collections: a provider that never answers cannot hold the reply', async () => {
    // Node 20 let `AbortSignal.timeout` inside `AbortSignal.any` be collected before it fired; the call then waited for
    // ever (a browser test waited 15 s for a reply once). Collections forced while ten calls wait.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const upstream = {
      kind: 'provider',
      baseURL: provider.baseURL,
      apiKey: 'sk-fake-search-words',
      model: 'm',
    } as const;
    const request = searchWordsRequest('m', { language: 'en' }, GERMAN, undefined);
    for (let i = 0; i < 10; i++) provider.queue({ hang: true });
    const collecting = setInterval(collect, 5);
    try {
      const asked = Array.from({ length: 10 }, () =>
        askSearchWords(upstream, request, new AbortController().signal, 100),
      );
      expect(await Promise.all(asked)).toEqual(Array(10).fill({}));
    } finally {
      clearInterval(collecting);
    }
    await expect.poll(() => provider.requests.filter((r) => r.aborted).length, { timeout: 10_000 }).toBe(10);
  }, 20_000);

  it('is never made with rewrite_questions: false, nor without knowledge', async () => {
    const off = await start({ assistant: { ...assistant, rewriteQuestions: false }, knowledge });
    await postChat(off.url, chatBody(GERMAN, { language: 'de' }));
    expect(sent()).toHaveLength(1);

    const plain = await start({});
    await postChat(plain.url, chatBody(GERMAN, { language: 'de' }));
    expect(sent()).toHaveLength(2);
    expect(sent()[1].messages).toEqual([{ role: 'user', content: GERMAN }]);
  });

  it("names the site (its title, its description or else the home page's), and NONE gives no passages", async () => {
    const home = await mkdtemp(join(tmpdir(), 'search-words-home-'));
    const homeStore = openKnowledgeStore(
      { dataDir: await mkdtemp(join(tmpdir(), 'search-words-home-store-')) },
      () => {},
    );
    await writeFile(
      join(home, 'index.md'),
      '---\ndescription: Hand-forged garden tools, sold online.\n---\n# Welcome\n\nHello.\n',
    );
    await writeFile(
      join(home, 'returns.md'),
      '# Returns\n\nYou can return any item within thirty days for a refund.\n',
    );
    const site = startKnowledge([{ path: home, url: 'https://tools.example/' }], { store: homeStore, log: () => {} });
    await site.ready;
    const titled = { ...assistant, page: { ...assistant.page, title: 'Forge & Spade' } };
    try {
      provider.queue({ content: 'NONE' });
      const fromHome = await start({ assistant: titled, knowledge: site });
      const reply = await postChat(fromHome.url, chatBody(GERMAN, { language: 'de' }));
      const [search, chat] = sent();
      expect(search.messages[0].content).toContain(
        'the website "Forge & Spade" into search words for the site\'s pages, which are written in the language tagged ' +
          '"en". The site: Hand-forged garden tools, sold online.',
      );
      // NONE: no passages, no sources, and no second lookup with the question as typed.
      expect(chat.messages).toEqual([{ role: 'user', content: GERMAN }]);
      expect((await reply.json()).sources).toBeUndefined();

      provider.reset();
      provider.queue({ content: 'return refund' });
      const described = await start({ assistant: { ...titled, description: 'Spades and rakes.' }, knowledge: site });
      await (await postChat(described.url, chatBody(GERMAN, { language: 'de' }))).text();
      expect(sent()[0].messages[0].content).toContain('The site: Spades and rakes. Answer');
      expect(sent()[1].messages[0].content).toContain('https://tools.example/returns');
    } finally {
      site.stop();
      await homeStore.close();
      await rm(home, { recursive: true, force: true });
    }
  });

  it("is paid for in the spend cap's reservation of the same message", async () => {
    // Room for the message alone, not for the search words (and the material they may find) as well.
    const without = await start({
      assistant: { ...assistant, rewriteQuestions: false },
      knowledge,
      dailyTokenLimit: 2_000,
    });
    expect((await postChat(without.url, chatBody(GERMAN, { language: 'de' }))).status).toBe(200);
    expect(sent()).toHaveLength(1);

    const asking = await start({ assistant, knowledge, dailyTokenLimit: 2_000 });
    expect((await postChat(asking.url, chatBody(GERMAN, { language: 'de' }))).status).toBe(429);
    expect(sent()).toHaveLength(1);
  });
});
