// The retrieval evaluation of issue 35, called from knowledge.ts: per corpus (a small shop, two HTML documentation
// sites from Debian's packages served through a sitemap on loopback), recall@5 and MRR, off-topic questions given
// nothing, hits whose address carries a real section id, follow-up recall, and other-language recall.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { askSearchWords, searchWordsRequest } from '../server/chat/chat.ts';
import type { KnowledgeSource } from '../server/knowledge/knowledge.ts';
import type { RetrievalLimits } from '../server/knowledge/retrieval-limits.ts';
import { openKnowledgeStore } from '../server/knowledge-store/knowledge-store.ts';
import { type Knowledge, type KnowledgeOptions, startKnowledge } from '../server/knowledge-sync/knowledge-sync.ts';
import {
  GIT_QUESTIONS,
  POSTGRES_QUESTIONS,
  type QuestionSet,
  SHOP_QUESTIONS,
} from './knowledge-retrieval-questions.ts';
import { markdownTable, met, ms, quantile } from './table.ts';

/** The targets. */
const TARGETS = {
  shop: 0.75,
  shopSearched: 0.9,
  docs: 0.9,
  offTopic: 0.8,
  sectionIds: 0.7,
  followUp: 0.75,
  translated: 0.75,
};

interface Corpus {
  name: string;
  questions: QuestionSet;
  /** The corpus's address: a question's pages are paths under it. */
  base: string;
  knowledge: Knowledge;
  /** Whether `id` is an element's id in the page at `path` (a section link that exists). */
  hasId: (path: string, id: string) => boolean;
  close: () => void;
}

export interface CorpusScores {
  name: string;
  /** With the search-word call, answered by a fake provider from the questions' fixed table. */
  searched?: Omit<CorpusScores, 'name' | 'searched' | 'sectionIds' | 'misses'> & { asked: number; latency: number[] };
  recall: number;
  mrr: number;
  offTopic: number;
  sectionIds: number;
  followUp: number;
  translated: number;
  misses: string[];
}

const quiet = (line: string) => {
  if (process.env.KNOWLEDGE_LOG) console.error(line);
};

/** A folder of HTML pages served on loopback with a sitemap of all of them, as a documentation host would. */
async function serveFolder(folder: string): Promise<{ server: Server; base: string }> {
  const files = readdirSync(folder).filter((file) => file.endsWith('.html'));
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname.slice(1));
    if (path === 'sitemap.xml') {
      const { port } = server.address() as AddressInfo;
      const urls = files.map((file) => `<url><loc>http://127.0.0.1:${port}/${file}</loc></url>`).join('');
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    } else if (files.includes(path)) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(readFileSync(join(folder, path)));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

const idIn = (html: string, id: string) =>
  new RegExp(`\\s(?:id|name)=["']?${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["'\\s>]`).test(html);

/**
 * The library's index of every page of `sources`, synced into a store of its own (a temp folder, removed once it is
 * in). Its first sync never answers early (`firstIndexMs`), so every page is scored; a page's extraction may take the
 * time a machine busy with other work needs, since this measures retrieval, not a crawl's speed.
 */
async function firstIndex(sources: KnowledgeSource[], options: Partial<KnowledgeOptions> = {}): Promise<Knowledge> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-retrieval-'));
  const store = openKnowledgeStore({ dataDir }, quiet);
  const whole = { firstIndexMs: 2_000_000_000, extractTimeoutMs: 60_000 };
  const knowledge = startKnowledge(sources, { ...options, ...whole, store, log: quiet });
  await knowledge.ready;
  knowledge.stop();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
  return knowledge;
}

async function docsCorpus(name: string, folder: string, questions: QuestionSet): Promise<Corpus> {
  if (!existsSync(folder)) throw new Error(`${folder} is missing: apt-get install postgresql-doc-15 git-doc`);
  const { server, base } = await serveFolder(folder);
  const knowledge = await firstIndex([{ sitemap: `${base}sitemap.xml` }], { maxPages: 5000 });
  return {
    name,
    questions,
    base,
    knowledge,
    hasId: (path, id) => idIn(readFileSync(join(folder, path), 'utf8'), id),
    close: () => server.close(),
  };
}

async function shopCorpus(): Promise<Corpus> {
  const folder = new URL('./knowledge-corpus/shop/', import.meta.url).pathname;
  const base = 'https://lindenloom.example/';
  const knowledge = await firstIndex([{ path: folder, url: base }]);
  const source = (path: string) =>
    ['.html', '.md', 'index.md']
      .map((ending) => join(folder, `${path}${ending}`))
      .find((file) => existsSync(file) && extname(file) !== '');
  return {
    name: 'small shop (10 pages)',
    questions: SHOP_QUESTIONS,
    base,
    knowledge,
    // A Markdown page's ids are its headings' slugs, made when it is published; an HTML page's are in its source.
    hasId: (path, id) => {
      const file = source(path);
      return file !== undefined && (file.endsWith('.md') || idIn(readFileSync(file, 'utf8'), id));
    },
    close: () => {},
  };
}

/** A passage address as a question's page path: under the base, without its fragment. */
const pathOf = (base: string, url: string) => url.split('#')[0].slice(base.length);
/** A page path as a miss names it: the home page's is empty. */
const shown = (path: string) => path || '/';

type Words = (latest: string, previous?: string, language?: string) => Promise<string | undefined>;

export async function score(corpus: Corpus, limits?: RetrievalLimits, words?: Words): Promise<CorpusScores> {
  const { knowledge, questions, base } = corpus;
  const misses: string[] = [];
  const pagesFor = async (latest: string, previous?: string, language?: string) => {
    const searchWords = await words?.(latest, previous, language);
    const found = knowledge.retrieve({ latest, previous, language, searchWords }, limits);
    const paths: string[] = [];
    const urls: string[] = [];
    for (const { passage } of found) {
      const path = pathOf(base, passage.url);
      if (!paths.includes(path)) {
        paths.push(path);
        urls.push(passage.url);
      }
    }
    return { paths, urls };
  };
  let hits = 0;
  let reciprocal = 0;
  let withIds = 0;
  for (const { question, pages } of questions.asked) {
    const { paths, urls } = await pagesFor(question);
    const rank = paths.findIndex((path) => pages.includes(path)) + 1;
    if (rank === 0) {
      misses.push(`${question} (${pages.map(shown).join(' or ')}; got ${paths.map(shown).join(', ') || 'nothing'})`);
      continue;
    }
    hits++;
    reciprocal += 1 / rank;
    const id = urls[rank - 1].split('#')[1];
    if (id && corpus.hasId(paths[rank - 1], decodeURIComponent(id))) withIds++;
  }
  let refused = 0;
  for (const question of questions.offTopic) {
    const { paths } = await pagesFor(question);
    if (paths.length > 0) misses.push(`off-topic: ${question} (got ${paths.map(shown).join(', ')})`);
    else refused++;
  }
  let followed = 0;
  for (const { first, followUp, pages } of questions.followUps) {
    if ((await pagesFor(followUp, first)).paths.some((path) => pages.includes(path))) followed++;
  }
  let translated = 0;
  for (const { question, pages, language } of questions.translated) {
    if ((await pagesFor(question, undefined, language)).paths.some((path) => pages.includes(path))) translated++;
  }
  return {
    name: corpus.name,
    recall: hits / questions.asked.length,
    mrr: reciprocal / questions.asked.length,
    offTopic: refused / questions.offTopic.length,
    sectionIds: hits === 0 ? 0 : withIds / hits,
    followUp: followed / questions.followUps.length,
    translated: translated / questions.translated.length,
    misses,
  };
}

/**
 * A fake provider on loopback that answers a search-word request from the questions' table (what a model gives; no
 * model runs here), and nothing for a question the table lacks: the server's own call reaches it over HTTP.
 */
async function tableProvider(table: Record<string, string>): Promise<{ server: Server; baseURL: string }> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (piece) => {
      body += piece;
    });
    request.on('end', () => {
      const asked = (JSON.parse(body) as { messages: { content: string }[] }).messages.at(-1)?.content ?? '';
      const question =
        asked
          .split('\n')
          .at(-1)
          ?.replace(/^Question: /, '') ?? '';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: table[question] ?? '' } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

/** The server's decision and call, as the chat route makes them; the time each call adds is kept in `latency`. */
function searchWordsFor(knowledge: Knowledge, baseURL: string, latency: number[], asked: { count: number }): Words {
  const upstream = { kind: 'provider' as const, baseURL, apiKey: 'bench-fake-token', model: 'bench/fake' };
  return async (latest, previous, language) => {
    const reason = knowledge.searchWordsReason({ latest, previous, language });
    const pagesLanguage = knowledge.language();
    if (!reason || !pagesLanguage) return undefined;
    asked.count++;
    const started = performance.now();
    const { words } = await askSearchWords(
      upstream,
      searchWordsRequest(upstream.model, pagesLanguage, latest, previous),
      new AbortController().signal,
    );
    latency.push(performance.now() - started);
    return words;
  };
}

async function scoreWithSearchWords(corpus: Corpus): Promise<CorpusScores> {
  const plain = await score(corpus);
  const { server, baseURL } = await tableProvider(corpus.questions.searchWords);
  const latency: number[] = [];
  const asked = { count: 0 };
  const withWords = await score(corpus, undefined, searchWordsFor(corpus.knowledge, baseURL, latency, asked));
  server.close();
  const { recall, mrr, offTopic, followUp, translated } = withWords;
  return {
    ...plain,
    searched: { recall, mrr, offTopic, followUp, translated, asked: asked.count, latency },
    misses: [...plain.misses, ...withWords.misses.map((miss) => `with search words: ${miss}`)],
  };
}

/** Every corpus's scores, and the table and misses to print. */
export const loadCorpora = async (docs = true) => [
  await shopCorpus(),
  ...(docs
    ? [
        await docsCorpus('PostgreSQL 15 docs (HTML)', '/usr/share/doc/postgresql-doc-15/html', POSTGRES_QUESTIONS),
        await docsCorpus('Git docs (HTML)', '/usr/share/doc/git-doc', GIT_QUESTIONS),
      ]
    : []),
];

export async function retrievalEvaluation(): Promise<{ scores: CorpusScores[]; text: string }> {
  const corpora = await loadCorpora();
  const scores: CorpusScores[] = [];
  for (const corpus of corpora) scores.push(await scoreWithSearchWords(corpus));
  for (const corpus of corpora) corpus.close();
  const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
  const mark = (value: number, target: number | undefined, text: string) =>
    target === undefined ? text : `${text} ${met(value >= target)}`;
  const rows = scores.flatMap((s, index) => {
    const shop = index === 0;
    const w = s.searched;
    return [
      [
        `${s.name}, as typed`,
        mark(s.recall, shop ? TARGETS.shop : undefined, s.recall.toFixed(3)),
        s.mrr.toFixed(3),
        mark(s.offTopic, TARGETS.offTopic, percent(s.offTopic)),
        mark(s.sectionIds, shop ? undefined : TARGETS.sectionIds, percent(s.sectionIds)),
        s.followUp.toFixed(3),
        s.translated.toFixed(3),
        '',
      ],
      ...(w
        ? [
            [
              `${s.name}, with the search-word call`,
              mark(w.recall, shop ? TARGETS.shopSearched : TARGETS.docs, w.recall.toFixed(3)),
              w.mrr.toFixed(3),
              mark(w.offTopic, TARGETS.offTopic, percent(w.offTopic)),
              '',
              mark(w.followUp, TARGETS.followUp, w.followUp.toFixed(3)),
              mark(w.translated, TARGETS.translated, w.translated.toFixed(3)),
              `${w.asked} calls, p50 ${ms(quantile(w.latency, 0.5))}, p95 ${ms(quantile(w.latency, 0.95))}`,
            ],
          ]
        : []),
    ];
  });
  const table = markdownTable(
    [
      'corpus',
      'recall@5',
      'MRR',
      'off-topic given nothing',
      'hits with a section id',
      'follow-up recall',
      'other-language recall',
      'search-word calls, added latency',
    ],
    rows,
  );
  const misses = scores.flatMap((s) => s.misses.map((miss) => `- ${s.name}: ${miss}`));
  return { scores, text: [table, misses.length > 0 ? `Missed:\n${misses.join('\n')}` : 'Missed: none.'].join('\n\n') };
}
