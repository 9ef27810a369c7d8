// `npm run bench:feedback`: what the owner's loop costs a server (issue 37). At 100 connections, the upstream at a
// model's pace: chat straight to the upstream, then through the app without the owner's loop and with it (its counts in
// a data folder, as one server keeps them), in turns; then votes (`POST /api/feedback`) through the same app at the rate
// chat replies came, for a visitor votes at most once per reply. Writes bench/results/feedback.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEEDBACK_PATH } from '../contract/feedback.ts';
import { CHAT_COMPLETIONS_PATH } from '../contract/llm.ts';
import { createFeedback, FileCountStore } from '../server/feedback/owner-loop.ts';
import { chatBody, listenBenchApp, MODEL_PACE, modelUpstream } from './bench-app.ts';
import type { CannonSummary } from './cannon.ts';
import { cannon } from './cannon-run.ts';
import { machineLine, markdownTable, median, met, ms, writeResults } from './table.ts';

const CONNECTIONS = 100;
const SECONDS = Number(process.env.LOAD_SECONDS ?? 10);
const SETTLE_SECONDS = 3;
/** Chat through the app without and with the owner's loop, this many times each, in turns: a busy machine's drift falls on both. */
const ROUNDS = 4;
/** The target: what counting may add to a chat request at p99. */
const COUNTING_P99_MS = 1;

const question = chatBody('How long does delivery to Lisbon take?');
const signed = (value: number) => `${value >= 0 ? '+' : ''}${ms(value)}`;

async function main() {
  const loadBefore = loadavg();
  const upstream = await modelUpstream();
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-feedback-'));
  const store = new FileCountStore(dataDir);
  const servers = { without: await listenBenchApp(upstream.output) };
  const withLoop = await listenBenchApp(upstream.output, { feedback: createFeedback({ store, log: () => {} }) });
  const timed = (url: string, extra: { bodies?: string[]; overallRate?: number } = {}) =>
    cannon({
      url,
      body: question,
      connections: CONNECTIONS,
      seconds: SETTLE_SECONDS + SECONDS,
      settleSeconds: SETTLE_SECONDS,
      ...extra,
    });
  try {
    console.log(`[feedback] chat straight to the upstream, ${CONNECTIONS} connections, ${SECONDS} s`);
    const direct = await timed(`${upstream.output}/chat/completions`);
    const runs: { without: CannonSummary[]; with: CannonSummary[] } = { without: [], with: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`[feedback] chat through the app without and with the owner's loop, round ${round} of ${ROUNDS}`);
      // Each goes first in every other round: neither always meets the machine as the other left it.
      const order = round % 2 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const which of order) {
        runs[which].push(await timed((which === 'with' ? withLoop : servers.without).url + CHAT_COMPLETIONS_PATH));
      }
    }
    const steady = (list: CannonSummary[], pick: 'p50' | 'p99') => median(list.map((run) => run.steady[pick]));
    const chat = { p50: steady(runs.with, 'p50'), p99: steady(runs.with, 'p99') };
    const rate = median(runs.with.map((run) => run.steady.perSecond));

    // Votes on real replies: each token the app gave with a chat reply, up and down in turn (a changed vote replaces
    // the first, so each request is counted, not only the first).
    const tokens = await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        const response = await fetch(withLoop.url + CHAT_COMPLETIONS_PATH, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: question,
        });
        return ((await response.json()) as { reply: string }).reply;
      }),
    );
    const bodies = tokens.flatMap((reply) => ['up', 'down'].map((rating) => JSON.stringify({ reply, rating })));
    console.log(`[feedback] votes at ${rate.toFixed(0)} a second (the chat rate), ${CONNECTIONS} connections`);
    const votes = await timed(withLoop.url + FEEDBACK_PATH, { bodies, overallRate: Math.round(rate) });

    const added = { p50: chat.p50 - direct.steady.p50, p99: chat.p99 - direct.steady.p99 };
    const counting = steady(runs.with, 'p99') - steady(runs.without, 'p99');
    const errors = [direct, votes, ...runs.with, ...runs.without].reduce((sum, run) => sum + run.unexpected, 0);
    const rows = [
      ['chat, straight to the upstream', ms(direct.steady.p50), ms(direct.steady.p99), '', ''],
      [
        `chat through the app without the owner's loop (median of ${ROUNDS})`,
        ms(steady(runs.without, 'p50')),
        ms(steady(runs.without, 'p99')),
        '',
        '',
      ],
      [
        `chat through the app with it (median of ${ROUNDS}): what the app adds`,
        `${ms(chat.p50)} (${signed(added.p50)})`,
        `${ms(chat.p99)} (${signed(added.p99)})`,
        '',
        '',
      ],
      [
        `votes at ${rate.toFixed(0)}/s: no more than chat's own added p50 / p99`,
        ms(votes.steady.p50),
        ms(votes.steady.p99),
        `≤ ${ms(added.p50)} / ≤ ${ms(added.p99)}`,
        met(votes.steady.p50 <= added.p50 && votes.steady.p99 <= added.p99),
      ],
      [
        "what counting adds to a chat request's p99 (with the loop minus without)",
        '',
        signed(counting),
        `≤ ${ms(COUNTING_P99_MS)}`,
        met(counting <= COUNTING_P99_MS),
      ],
    ];
    const text = [
      `The owner's loop under load (\`npm run bench:feedback\`), ${new Date().toISOString().slice(0, 10)}, ` +
        `${machineLine(loadBefore)}; ${CONNECTIONS} connections, each run ${SETTLE_SECONDS} s settling + ${SECONDS} s ` +
        `measured; upstream ${MODEL_PACE.delayMs} ms per reply; counts in a data folder; ${errors} errors.`,
      markdownTable(['Run', 'p50', 'p99', 'Target', 'Met'], rows),
    ].join('\n\n');
    console.log(`\n${text}\n`);
    await writeResults('feedback', text);
  } finally {
    await Promise.all([servers.without.close(), withLoop.close()]);
    upstream.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
