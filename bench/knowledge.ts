// `npm run bench:knowledge`: the knowledge library's retrieval on real documentation (the READMEs that packages ship
// in node_modules, see knowledge-questions.ts), then at 10,000 pages (those READMEs among synthetic pages drawn from
// their words): recall@5, MRR, off-topic questions with no passages, indexing time and memory, retrieval p50/p95.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { eng } from 'stopword';
import { buildIndex, filePage, type KnowledgeIndex, type Page, retrieve } from '../server/knowledge/library/library.ts';
import { hostileRows } from './knowledge-hostile.ts';
import { CORPUS_PACKAGES, OFF_TOPIC_QUESTIONS, QUESTIONS } from './knowledge-questions.ts';
import { retrievalEvaluation } from './knowledge-retrieval.ts';
import { syncBench } from './knowledge-sync.ts';
import { machineLine, markdownTable, met, ms, quantile, writeResults } from './table.ts';

/** The targets. */
const TARGETS = { recall: 0.9, offTopic: 0.8, indexSeconds: 60, p95Ms: 20 };
const SCALE_PAGES = 10_000;
const TIMING_ROUNDS = 5;
/** The sync benchmark's site in the full run. */
const SYNC_PAGES = 10_000;

const npmPage = (name: string) => `https://www.npmjs.com/package/${name}`;

function readmePages(): Page[] {
  return CORPUS_PACKAGES.map((name) => {
    const folder = new URL(`../node_modules/${name}/`, import.meta.url);
    const readme = readdirSync(folder).find((file) => file.toLowerCase() === 'readme.md');
    if (!readme) throw new Error(`${name} ships no README.md: run npm ci`);
    const text = readFileSync(new URL(readme, folder), 'utf8');
    const page = filePage('README.md', text, `${npmPage(name)}/`, 'en');
    if (!page) throw new Error(`${name}: README.md is not read as a page`);
    return { ...page, url: npmPage(name) };
  });
}

/** A small seeded generator (mulberry32), so every run draws the same synthetic pages. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` pages of 1-5 KB in Markdown, like a large site's pages on subjects of their own: each page's words are
 * English stop words, words of its topic (one of 500 invented vocabularies) and, one in twenty, a word of the READMEs
 * (so their words occur across the index too, as a site's own vocabulary would). Repeating README passages instead
 * would leave each question with several right answers.
 */
function syntheticPages(readmes: Page[], count: number): Page[] {
  const readmeWords = [
    ...new Set(
      readmes.flatMap((page) =>
        page.sections.flatMap((section) => section.text.toLowerCase().match(/\p{L}{3,}/gu) ?? []),
      ),
    ),
  ].sort();
  const next = random(25);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ren',
    'sa',
    'to',
    'vu',
    'zel',
    'dor',
    'fi',
    'gan',
    'ple',
    'qua',
    'bri',
    'nox',
    'tes',
  ];
  const topics = Array.from({ length: 500 }, () =>
    Array.from({ length: 200 }, () =>
      Array.from({ length: 2 + Math.floor(next() * 3) }, () => syllables[Math.floor(next() * syllables.length)]).join(
        '',
      ),
    ),
  );
  const any = <T>(list: readonly T[], skew = 1) => list[Math.floor(next() ** skew * list.length)];
  return Array.from({ length: count }, (_, n) => {
    const topic = topics[n % topics.length];
    const word = () => {
      const draw = next();
      return draw < 0.45 ? any(eng) : draw < 0.95 ? any(topic, 2) : any(readmeWords);
    };
    const phrase = (length: number) => Array.from({ length }, word).join(' ');
    const sections = Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({
      headings: [phrase(1 + Math.floor(next() * 3))],
      text: Array.from({ length: 1 + Math.floor(next() * 3) }, () => phrase(40 + Math.floor(next() * 80))).join('\n\n'),
    }));
    return { url: `https://docs.example.com/synthetic/${n}`, title: phrase(3), language: 'en', sections };
  });
}

interface Quality {
  recall: number;
  mrr: number;
  offTopic: number;
  misses: string[];
}

function quality(index: KnowledgeIndex): Quality {
  let found = 0;
  let reciprocal = 0;
  const misses: string[] = [];
  for (const { question, page } of QUESTIONS) {
    const pages = [...new Set(retrieve(index, { latest: question }).map(({ passage }) => passage.page))];
    const rank = pages.indexOf(npmPage(page)) + 1;
    if (rank > 0) {
      found++;
      reciprocal += 1 / rank;
    } else
      misses.push(`${question} (${page}; got ${pages.map((url) => url.split('/').pop()).join(', ') || 'nothing'})`);
  }
  const refused = OFF_TOPIC_QUESTIONS.filter((question) => retrieve(index, { latest: question }).length === 0).length;
  return {
    recall: found / QUESTIONS.length,
    mrr: reciprocal / QUESTIONS.length,
    offTopic: refused / OFF_TOPIC_QUESTIONS.length,
    misses,
  };
}

const heapMb = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1e6;
};

/** `--sync-pages=50000`: the sync benchmark alone at that size, kept beside the full run's figures. */
async function syncAlone(pages: number) {
  const loadBefore = loadavg();
  const sync = await syncBench(pages);
  const text = `${sync.text}\n\nMeasured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machineLine(loadBefore)}.`;
  console.log(text);
  await writeResults(`knowledge-sync-${pages}`, text, sync.data);
}

async function main() {
  const loadBefore = loadavg();
  // First, while the process holds nothing else: its RSS and its garbage collections are then the crawl's, not those
  // of the 10,000-page index built below.
  const hostile = await hostileRows();
  const evaluation = await retrievalEvaluation();
  const readmes = readmePages();
  const small = quality(await buildIndex(readmes));

  const pages = [...readmes, ...syntheticPages(readmes, SCALE_PAGES - readmes.length)];
  const heapBefore = heapMb();
  const started = performance.now();
  // How long a chat request could wait for the build: the gaps between turns of the event loop while it runs.
  const gaps: number[] = [];
  let lastTurn = started;
  const probe = setInterval(() => {
    gaps.push(performance.now() - lastTurn);
    lastTurn = performance.now();
  }, 1);
  const index = await buildIndex(pages);
  clearInterval(probe);
  gaps.push(performance.now() - lastTurn);
  const indexSeconds = (performance.now() - started) / 1000;
  const heldMb = heapMb() - heapBefore;
  const large = quality(index);
  const times: number[] = [];
  for (let round = 0; round < TIMING_ROUNDS; round++) {
    for (const question of [...QUESTIONS.map((item) => item.question), ...OFF_TOPIC_QUESTIONS]) {
      const start = performance.now();
      retrieve(index, { latest: question });
      times.push(performance.now() - start);
    }
  }
  const p50 = quantile(times, 0.5);
  const p95 = quantile(times, 0.95);
  const row = (name: string, value: string, target: string, ok: boolean) => [name, value, target, met(ok)];
  const table = markdownTable(
    ['', 'measured', 'target', 'met'],
    [
      row(`recall@5, ${readmes.length} READMEs`, small.recall.toFixed(3), '≥ 0.9', small.recall >= TARGETS.recall),
      row(`MRR, ${readmes.length} READMEs`, small.mrr.toFixed(3), '', true),
      row(
        'off-topic with no passages',
        `${(small.offTopic * 100).toFixed(0)}%`,
        '≥ 80%',
        small.offTopic >= TARGETS.offTopic,
      ),
      row(`recall@5 at ${SCALE_PAGES} pages`, large.recall.toFixed(3), '≥ 0.9', large.recall >= TARGETS.recall),
      row(`MRR at ${SCALE_PAGES} pages`, large.mrr.toFixed(3), '', true),
      row(
        `off-topic with no passages at ${SCALE_PAGES}`,
        `${(large.offTopic * 100).toFixed(0)}%`,
        '≥ 80%',
        large.offTopic >= TARGETS.offTopic,
      ),
      row(
        `indexing ${SCALE_PAGES} pages (${index.passages.length} passages)`,
        `${indexSeconds.toFixed(1)} s`,
        '≤ 60 s',
        indexSeconds <= TARGETS.indexSeconds,
      ),
      row(
        'event loop held by the build, p99 / longest',
        `${ms(quantile(gaps, 0.99), 0)} / ${ms(Math.max(...gaps), 0)}`,
        '',
        true,
      ),
      row('heap held by the index', `${heldMb.toFixed(0)} MB`, '', true),
      row('retrieval p50', ms(p50), '', true),
      row('retrieval p95', ms(p95), '≤ 20 ms', p95 <= TARGETS.p95Ms),
      ...hostile.rows,
    ],
  );
  const misses = [
    ...small.misses.map((miss) => `- ${miss}`),
    ...large.misses.map((miss) => `- at ${SCALE_PAGES}: ${miss}`),
  ];
  const sync = await syncBench(SYNC_PAGES);
  const text = [
    `# Knowledge retrieval (${QUESTIONS.length} questions, ${OFF_TOPIC_QUESTIONS.length} off-topic)`,
    table,
    misses.length > 0 ? `Missed:\n${misses.join('\n')}` : 'Missed: none.',
    sync.text,
    `## The shop and two HTML documentation sites (issue 35)\n\n${evaluation.text}`,
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machineLine(loadBefore)}${globalThis.gc ? '' : '; heap measured without --expose-gc'}.`,
  ].join('\n\n');
  console.log(text);
  await writeResults('knowledge', text, {
    small,
    large,
    indexSeconds,
    heldMb,
    p50,
    p95,
    longestGap: Math.max(...gaps),
    sync: sync.data,
    corpora: evaluation.scores,
    hostile: hostile.data,
  });
}

/**
 * `--retrieval` (with `--shop`, the shop alone): the three corpora's retrieval quality alone, quicker while the rules
 * are tuned; its results go to `bench/results/knowledge-retrieval.md`, not over the full run's.
 */
async function retrievalAlone(docs: boolean) {
  const loadBefore = loadavg();
  const evaluation = await retrievalEvaluation(docs);
  const text = `${evaluation.text}\n\nMeasured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machineLine(loadBefore)}.`;
  console.log(text);
  await writeResults('knowledge-retrieval', text, evaluation.scores);
}

const syncPages = /--sync-pages=(\d+)/.exec(process.argv.join(' '))?.[1];
await (syncPages
  ? syncAlone(Number(syncPages))
  : process.argv.includes('--retrieval')
    ? retrievalAlone(!process.argv.includes('--shop'))
    : main());
