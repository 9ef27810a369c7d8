// The retrieval evaluation of issue 35, called from knowledge.ts: per corpus (a small shop, two HTML documentation
// sites from Debian's packages served through a sitemap on loopback), recall@5 and MRR, off-topic questions given
// nothing, hits whose address carries a real section id, follow-up recall, and other-language recall.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { type Knowledge, startKnowledge } from '../server/knowledge/knowledge.ts';
import type { RetrievalLimits } from '../server/knowledge/retrieve.ts';
import {
  GIT_QUESTIONS,
  POSTGRES_QUESTIONS,
  type QuestionSet,
  SHOP_QUESTIONS,
} from './knowledge-retrieval-questions.ts';
import { markdownTable, met } from './table.ts';

/** The issue's targets. */
const TARGETS = { shop: 0.75, docs: 0.9, offTopic: 0.8, sectionIds: 0.7, followUp: 0.75, translated: 0.75 };

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

async function docsCorpus(name: string, folder: string, questions: QuestionSet): Promise<Corpus> {
  if (!existsSync(folder)) throw new Error(`${folder} is missing: apt-get install postgresql-doc-15 git-doc`);
  const { server, base } = await serveFolder(folder);
  const knowledge = startKnowledge([{ sitemap: `${base}sitemap.xml` }], { maxPages: 5000, log: quiet });
  await knowledge.ready;
  knowledge.stop();
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
  const knowledge = startKnowledge([{ path: folder, url: base }], { log: quiet });
  await knowledge.ready;
  knowledge.stop();
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

export function score(corpus: Corpus, limits?: RetrievalLimits): CorpusScores {
  const { knowledge, questions, base } = corpus;
  const misses: string[] = [];
  const pagesFor = (latest: string, previous?: string, language?: string) => {
    const found = knowledge.retrieve({ latest, previous, language }, limits);
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
    const { paths, urls } = pagesFor(question);
    const rank = paths.findIndex((path) => pages.includes(path)) + 1;
    if (rank === 0) {
      misses.push(`${question} (${pages.join(' or ') || '/'}; got ${paths.join(', ') || 'nothing'})`);
      continue;
    }
    hits++;
    reciprocal += 1 / rank;
    const id = urls[rank - 1].split('#')[1];
    if (id && corpus.hasId(paths[rank - 1], decodeURIComponent(id))) withIds++;
  }
  const refused = questions.offTopic.filter((question) => {
    const { paths } = pagesFor(question);
    if (paths.length > 0) misses.push(`off-topic: ${question} (got ${paths.join(', ')})`);
    return paths.length === 0;
  }).length;
  const followed = questions.followUps.filter(({ first, followUp, pages }) =>
    pagesFor(followUp, first).paths.some((path) => pages.includes(path)),
  ).length;
  const translated = questions.translated.filter(({ question, pages, language }) =>
    pagesFor(question, undefined, language).paths.some((path) => pages.includes(path)),
  ).length;
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
  const scores = corpora.map((corpus) => score(corpus));
  for (const corpus of corpora) corpus.close();
  const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
  const rows = scores.map((s, index) => {
    const recallTarget = index === 0 ? TARGETS.shop : TARGETS.docs;
    return [
      s.name,
      `${s.recall.toFixed(3)} ${met(s.recall >= recallTarget)}`,
      s.mrr.toFixed(3),
      `${percent(s.offTopic)} ${met(s.offTopic >= TARGETS.offTopic)}`,
      `${percent(s.sectionIds)}${index === 0 ? '' : ` ${met(s.sectionIds >= TARGETS.sectionIds)}`}`,
      s.followUp.toFixed(3),
      s.translated.toFixed(3),
    ];
  });
  const table = markdownTable(
    ['corpus', 'recall@5', 'MRR', 'off-topic given nothing', 'hits with a section id', 'follow-up', 'other language'],
    rows,
  );
  const misses = scores.flatMap((s) => s.misses.map((miss) => `- ${s.name}: ${miss}`));
  return { scores, text: [table, misses.length > 0 ? `Missed:\n${misses.join('\n')}` : 'Missed: none.'].join('\n\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await retrievalEvaluation()).text);
