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
import {
  type Knowledge,
  type KnowledgeOptions,
  type KnowledgeSource,
  openKnowledgeStore,
  type RetrievalLimits,
  startKnowledge,
} from '../server/knowledge/knowledge.ts';
import { repeatOnly, SEVEN_B_WORDS } from './knowledge-model-words.ts';
import {
  conversations,
  type FollowUp,
  GIT_QUESTIONS,
  POSTGRES_QUESTIONS,
  type QuestionSet,
  SHOP_QUESTIONS,
} from './knowledge-retrieval-questions.ts';
import { markdownTable, met, ms, quantile } from './table.ts';

/** The issue's targets. */
const TARGETS = {
  shop: 0.75,
  shopSearched: 0.9,
  docs: 0.9,
  offTopic: 0.9,
  sectionIds: 0.7,
  followUp: 0.75,
  followUpResolved: 1,
  translated: 0.75,
  pagesMedian: 1,
  pagesMost: 3,
};

interface Corpus {
  name: string;
  /** Its key in the 7B model's table. */
  key: keyof typeof SEVEN_B_WORDS;
  questions: QuestionSet;
  /** The corpus's address: a question's pages are paths under it. */
  base: string;
  knowledge: Knowledge;
  /** Whether `id` is an element's id in the page at `path` (a section link that exists). */
  hasId: (path: string, id: string) => boolean;
  close: () => void;
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

async function docsCorpus(name: string, key: Corpus['key'], folder: string, questions: QuestionSet): Promise<Corpus> {
  if (!existsSync(folder)) throw new Error(`${folder} is missing: apt-get install postgresql-doc-15 git-doc`);
  const { server, base } = await serveFolder(folder);
  const knowledge = await firstIndex([{ sitemap: `${base}sitemap.xml` }], { maxPages: 5000 });
  return {
    name,
    key,
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
    key: 'shop',
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

/** One way of asking (as typed, or with one model's search words): its scores on one corpus. */
export interface Scores {
  recall: number;
  mrr: number;
  /** Off-topic questions (near misses too) given no page, asked alone and asked second after an on-topic one. */
  offTopic: number;
  offTopicSecond: number;
  /** Asked questions found when asked second after an unrelated one. */
  recallSecond: number;
  sectionIds: number;
  followUp: number;
  translated: number;
  /**
   * The pages of the passages given for each question answered (its page among them): the most that the reply can
   * cite, so the most its Sources list can show.
   */
  pagesListed: number[];
  asked: number;
  latency: number[];
  misses: string[];
}

export async function score(corpus: Corpus, words?: Words, limits?: RetrievalLimits): Promise<Scores> {
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
  const pagesListed: number[] = [];
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
    pagesListed.push(paths.length);
    const id = urls[rank - 1].split('#')[1];
    if (id && corpus.hasId(paths[rank - 1], decodeURIComponent(id))) withIds++;
  }
  const refusedShare = async (asked: FollowUp[], label: string) => {
    let refused = 0;
    for (const { first, followUp } of asked) {
      const { paths } = await pagesFor(followUp, first || undefined);
      if (paths.length === 0) refused++;
      else
        misses.push(`${label}: ${followUp}${first ? ` (after "${first}")` : ''} (got ${paths.map(shown).join(', ')})`);
    }
    return refused / asked.length;
  };
  const foundShare = async (asked: FollowUp[], label: string) => {
    let found = 0;
    for (const { first, followUp, pages } of asked) {
      const { paths } = await pagesFor(followUp, first);
      if (paths.some((path) => pages.includes(path))) found++;
      else misses.push(`${label}: ${followUp} (after "${first}"; got ${paths.map(shown).join(', ') || 'nothing'})`);
    }
    return found / asked.length;
  };
  const alone = [...questions.offTopic, ...questions.nearMisses].map((followUp) => ({
    first: '',
    followUp,
    pages: [],
  }));
  const second = conversations(questions);
  const offTopic = await refusedShare(alone, 'off-topic');
  const offTopicSecond = await refusedShare(second.offTopic, 'off-topic second');
  const recallSecond = await foundShare(second.onTopic, 'asked second');
  const followUp = await foundShare(questions.followUps, 'follow-up');
  let translated = 0;
  for (const { question, pages, language } of questions.translated) {
    if ((await pagesFor(question, undefined, language)).paths.some((path) => pages.includes(path))) translated++;
  }
  return {
    recall: hits / questions.asked.length,
    mrr: reciprocal / questions.asked.length,
    offTopic,
    offTopicSecond,
    recallSecond,
    sectionIds: hits === 0 ? 0 : withIds / hits,
    followUp,
    translated: translated / questions.translated.length,
    pagesListed,
    asked: 0,
    latency: [],
    misses,
  };
}

/**
 * A fake provider on loopback that answers a search-word request as `answer` says (what a model gives; no model runs
 * here): the server's own call reaches it over HTTP.
 */
async function fakeModel(answer: (question: string) => string): Promise<{ server: Server; baseURL: string }> {
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
      response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: answer(question) } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

/** The server's decision and call, as the chat route makes them; the time each call adds is kept in `latency`. */
function searchWordsFor(corpus: Corpus, baseURL: string, latency: number[], asked: { count: number }): Words {
  const { knowledge } = corpus;
  const upstream = { kind: 'provider' as const, baseURL, apiKey: 'bench-fake-token', model: 'bench/fake' };
  return async (latest, previous, language) => {
    const reason = knowledge.searchWordsReason({ latest, previous, language });
    const pagesLanguage = knowledge.language();
    if (!reason || !pagesLanguage) return undefined;
    asked.count++;
    const started = performance.now();
    const { words } = await askSearchWords(
      upstream,
      searchWordsRequest(upstream.model, { language: pagesLanguage, title: corpus.name }, latest, previous),
      new AbortController().signal,
    );
    latency.push(performance.now() - started);
    return words;
  };
}

/** The three models of issue 45, and the bench's first table. */
const MODELS = ['the first table', 'a 7B model', 'a repeat-only model'] as const;
type Model = (typeof MODELS)[number];

const answerOf = (corpus: Corpus, model: Model) => (question: string) =>
  model === 'a repeat-only model'
    ? repeatOnly(question)
    : ((model === 'the first table' ? corpus.questions.searchWords : SEVEN_B_WORDS[corpus.key])[question] ?? '');

async function scoreWithModel(corpus: Corpus, model: Model): Promise<Scores> {
  const { server, baseURL } = await fakeModel(answerOf(corpus, model));
  const latency: number[] = [];
  const asked = { count: 0 };
  const scores = await score(corpus, searchWordsFor(corpus, baseURL, latency, asked));
  server.close();
  return { ...scores, asked: asked.count, latency };
}

export interface CorpusScores {
  name: string;
  typed: Scores;
  models: Record<Model, Scores>;
}

/** Every corpus, or only the shop (`docs` false). */
export const loadCorpora = async (docs = true) => [
  await shopCorpus(),
  ...(docs
    ? [
        await docsCorpus(
          'PostgreSQL 15 docs (HTML)',
          'postgres',
          '/usr/share/doc/postgresql-doc-15/html',
          POSTGRES_QUESTIONS,
        ),
        await docsCorpus('Git docs (HTML)', 'git', '/usr/share/doc/git-doc', GIT_QUESTIONS),
      ]
    : []),
];

const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
const mark = (value: number, target: number | undefined, text: string) =>
  target === undefined ? text : `${text} ${met(value >= target)}`;

/** One row of the table: a corpus asked one way. */
function row(name: string, s: Scores, model: Model | undefined, shop: boolean): string[] {
  const recallTarget =
    model === undefined
      ? shop
        ? TARGETS.shop
        : undefined
      : model === 'the first table'
        ? shop
          ? TARGETS.shopSearched
          : TARGETS.docs
        : undefined;
  const followUpTarget =
    model === undefined ? undefined : model === 'a repeat-only model' ? TARGETS.followUp : TARGETS.followUpResolved;
  const listed = s.pagesListed;
  const listedMet = quantile(listed, 0.5) <= TARGETS.pagesMedian && Math.max(...listed) <= TARGETS.pagesMost;
  return [
    model ? `${name}, ${model}` : `${name}, as typed`,
    mark(s.recall, recallTarget, s.recall.toFixed(3)),
    s.mrr.toFixed(3),
    s.recallSecond.toFixed(3),
    mark(s.offTopic, TARGETS.offTopic, percent(s.offTopic)),
    mark(s.offTopicSecond, TARGETS.offTopic, percent(s.offTopicSecond)),
    mark(s.followUp, followUpTarget, s.followUp.toFixed(3)),
    mark(s.translated, model ? TARGETS.translated : undefined, s.translated.toFixed(3)),
    `${quantile(listed, 0.5)} / ${Math.max(...listed)} ${met(listedMet)}`,
    model ? '' : mark(s.sectionIds, shop ? undefined : TARGETS.sectionIds, percent(s.sectionIds)),
    model ? `${s.asked}, p50 ${ms(quantile(s.latency, 0.5))}, p95 ${ms(quantile(s.latency, 0.95))}` : '',
  ];
}

/** Every corpus's scores, and the table and misses to print; `docs` false measures the shop alone (quicker). */
export async function retrievalEvaluation(docs = true): Promise<{ scores: CorpusScores[]; text: string }> {
  const corpora = await loadCorpora(docs);
  const scores: CorpusScores[] = [];
  for (const corpus of corpora) {
    const typed = await score(corpus);
    const models = {} as Record<Model, Scores>;
    for (const model of MODELS) models[model] = await scoreWithModel(corpus, model);
    scores.push({ name: corpus.name, typed, models });
  }
  for (const corpus of corpora) corpus.close();
  const rows = scores.flatMap(({ name, typed, models }, index) => [
    row(name, typed, undefined, index === 0),
    ...MODELS.map((model) => row(name, models[model], model, index === 0)),
  ]);
  const table = markdownTable(
    [
      'corpus, search words',
      'recall@5',
      'MRR',
      'recall asked second',
      'off-topic given nothing',
      'off-topic second given nothing',
      'follow-up recall',
      'other-language recall',
      'pages listed, median / most',
      'hits with a section id',
      'search-word calls, added latency',
    ],
    rows,
  );
  const misses = scores.flatMap(({ name, typed, models }) => [
    ...typed.misses.map((miss) => `- ${name}, as typed: ${miss}`),
    ...MODELS.flatMap((model) => models[model].misses.map((miss) => `- ${name}, ${model}: ${miss}`)),
  ]);
  return { scores, text: [table, misses.length > 0 ? `Missed:\n${misses.join('\n')}` : 'Missed: none.'].join('\n\n') };
}
