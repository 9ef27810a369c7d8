// `npm run load`: autocannon straight to a fake upstream and through the proxy (what the proxy adds), at a model's
// pace and a stress pace, then the server's memory over 50,000 requests. Writes bench/results/load.md.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CHAT_COMPLETIONS_PATH, MAX_TOKENS, TEMPERATURE } from '../contract/llm.ts';
import { buildServerOnly, startProductionServer } from '../testing/production-app.ts';
import { freePort } from '../testing/redis-server.ts';
import { MODEL_PACE } from './bench-app.ts';
import type { CannonSummary } from './cannon.ts';
import { cannon, spawnScript } from './cannon-run.ts';
import { machineLine, markdownTable, ms, writeResults } from './table.ts';

/** Far faster than any hosted model: shows what the proxy costs when requests come faster than a model can answer. */
const STRESS_PACE = { delayMs: 50, pieceDelayMs: 10 };
/** Each run's measured seconds, after `SETTLE_SECONDS` that are timed apart (see bench/cannon.ts). */
const SECONDS_PER_RUN = Number(process.env.LOAD_SECONDS ?? 10);
const SETTLE_SECONDS = 3;
const MEMORY_SAMPLES = [5_000, 50_000];
/** The targets, at 100 connections and a model's pace. */
const TARGET_P50_MS = 5;
const TARGET_P99_MS = 20;
/** The heap floor's noise between batches; RSS is shown, not judged (it follows the allocator). */
const MEMORY_NOISE_BYTES = 8 * 1024 * 1024;

const RUN_COLUMNS =
  'Upstream | Mode | Conns | Direct req/s | Proxy req/s | Direct p50 | Proxy p50 | Added p50 | Direct p99 | ' +
  'Proxy p99 | Added p99 | Added p99 while settling | 429s | Other errors';
const MEMORY_COLUMNS =
  'Server after (plain, 100 connections, stress pace) | RSS | Heap used | Heap floor | Server CPU per request | Other errors';
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const signed = (value: number, format = ms) => `${value >= 0 ? '+' : ''}${format(value)}`;

function chatBody(stream: boolean, upstreamShape: boolean): string {
  const messages = [{ role: 'user', content: 'How long does delivery to Lisbon take?' }];
  const body = { model: 'load-model', messages, max_tokens: MAX_TOKENS, temperature: TEMPERATURE };
  // Straight to the upstream, the body the proxy would send, so that the upstream does the same work both ways.
  if (stream) Object.assign(body, { stream: true }, upstreamShape ? { stream_options: { include_usage: true } } : {});
  return JSON.stringify(body);
}

/** The server's own figures, from its metrics: memory, and CPU time so far (user + system). */
async function serverFigures(metricsUrl: string) {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    rss: value('process_resident_memory_bytes'),
    heap: value('nodejs_heap_size_used_bytes'),
    cpuSeconds: value('process_cpu_seconds_total'),
  };
}

async function main() {
  const loadBefore = loadavg();
  console.log('[load] building the production server');
  const entry = await buildServerOnly(fileURLToPath(new URL('../node_modules/.cache/load', import.meta.url)));
  const upstream = (pace: typeof MODEL_PACE) =>
    spawnScript('bench/fake-upstream.ts', [String(pace.delayMs), String(pace.pieceDelayMs)]);
  const upstreams = { model: await upstream(MODEL_PACE), stress: await upstream(STRESS_PACE) };
  // One server per pace: each is configured with one provider.
  const serverFor = async (pace: keyof typeof upstreams) =>
    startProductionServer(entry, {
      LLM_BASE_URL: upstreams[pace].output,
      LLM_API_KEY: 'load-key-not-real',
      LLM_MODEL: 'load-model',
      METRICS_PORT: String(await freePort()),
      // One address sends everything; the limiter stays on the path, set high enough to let the load through.
      RATE_LIMIT_PER_MINUTE: '1000000',
    });
  const servers = { model: await serverFor('model'), stress: await serverFor('stress') };
  try {
    const runs: (string | number)[][] = [];
    const added100: { p50: number; p99: number }[] = [];
    const plan = [10, 100, 500].map((connections) => ['model', connections] as const);
    for (const [pace, connections] of [...plan, ['stress', 100] as const]) {
      for (const mode of ['plain', 'stream'] as const) {
        console.log(`[load] ${pace} pace, ${mode}, ${connections} connections, ${SECONDS_PER_RUN} s each way`);
        const timed = (url: string, upstreamShape: boolean) =>
          cannon({
            url,
            body: chatBody(mode === 'stream', upstreamShape),
            connections,
            seconds: SETTLE_SECONDS + SECONDS_PER_RUN,
            settleSeconds: SETTLE_SECONDS,
          });
        const direct = await timed(`${upstreams[pace].output}/chat/completions`, true);
        const proxy = await timed(servers[pace].url + CHAT_COMPLETIONS_PATH, false);
        const [p50, p99] = [proxy.steady.p50 - direct.steady.p50, proxy.steady.p99 - direct.steady.p99];
        if (pace === 'model' && connections === 100) added100.push({ p50, p99 });
        const pair = (pick: (summary: CannonSummary) => number) => [ms(pick(direct)), ms(pick(proxy))];
        const rates = [direct, proxy].map((summary) => summary.steady.perSecond.toFixed(0));
        const p50s = [...pair((summary) => summary.steady.p50), signed(p50)];
        const p99s = [...pair((x) => x.steady.p99), signed(p99), signed(proxy.settling.p99 - direct.settling.p99)];
        runs.push([
          pace,
          mode,
          connections,
          ...rates,
          ...p50s,
          ...p99s,
          proxy.count429,
          proxy.unexpected + direct.unexpected,
        ]);
      }
    }

    console.log(`[load] ${MEMORY_SAMPLES.at(-1)} plain requests through the proxy at 100 connections (stress pace)`);
    const metricsUrl = servers.stress.metricsUrl as string;
    const samples: { rss: number; heapFloor: number }[] = [];
    const memoryRows: (string | number)[][] = [];
    let sent = 0;
    let before = await serverFigures(metricsUrl);
    for (const target of MEMORY_SAMPLES) {
      // The heap used right after a request batch depends on when the collector last ran; its lowest value while
      // serving (the floor of the sawtooth, after each full collection) is what a leak would raise.
      let heapFloor = Number.POSITIVE_INFINITY;
      const floor = (figures: { heap: number }) => {
        heapFloor = Math.min(heapFloor, figures.heap);
      };
      const watch = setInterval(() => serverFigures(metricsUrl).then(floor, () => undefined), 100);
      const url = servers.stress.url + CHAT_COMPLETIONS_PATH;
      const result = await cannon({ url, body: chatBody(false, false), connections: 100, amount: target - sent });
      clearInterval(watch);
      const after = await serverFigures(metricsUrl);
      heapFloor = Math.min(heapFloor, after.heap);
      // CPU per request does not depend on what else the machine runs, unlike the latencies above.
      const cpuMs = ((after.cpuSeconds - before.cpuSeconds) * 1000) / (target - sent);
      samples.push({ rss: after.rss, heapFloor });
      const memory = [after.rss, after.heap, heapFloor].map(mb);
      memoryRows.push([`${target} requests`, ...memory, ms(cpuMs, 2), result.unexpected]);
      sent = target;
      before = after;
    }

    const addedP50 = Math.max(...added100.map((added) => added.p50));
    const addedP99 = Math.max(...added100.map((added) => added.p99));
    const growth = samples[1].heapFloor - samples[0].heapFloor;
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const text = [
      `Load (\`npm run load\`), ${new Date().toISOString().slice(0, 10)}, ${machineLine(loadBefore)}; each run ` +
        `${SETTLE_SECONDS} s settling (timed apart) + ${SECONDS_PER_RUN} s measured; upstream at a model's pace: ` +
        `${MODEL_PACE.delayMs} ms per reply (streamed: ${MODEL_PACE.delayMs} ms, then 5 pieces ${MODEL_PACE.pieceDelayMs} ms ` +
        `apart); at the stress pace: ${STRESS_PACE.delayMs} ms and ${STRESS_PACE.pieceDelayMs} ms.`,
      markdownTable(RUN_COLUMNS.split(' | '), runs),
      markdownTable(MEMORY_COLUMNS.split(' | '), memoryRows),
      `Targets at 100 connections, model pace (worst of plain and streamed): added p50 ${signed(addedP50)} ` +
        `(≤ ${TARGET_P50_MS} ms: ${verdict(addedP50 <= TARGET_P50_MS)}), added p99 ${signed(addedP99)} ` +
        `(≤ ${TARGET_P99_MS} ms: ${verdict(addedP99 <= TARGET_P99_MS)}); heap floor ${signed(growth, mb)} from ` +
        `5,000 to 50,000 requests (within ${mb(MEMORY_NOISE_BYTES)} of noise: ${verdict(growth <= MEMORY_NOISE_BYTES)}; ` +
        `RSS ${signed(samples[1].rss - samples[0].rss, mb)}).`,
    ].join('\n\n');
    console.log(`\n${text}\n`);
    await writeResults('load', text);
  } finally {
    await Promise.all([servers.model.close(), servers.stress.close()]);
    upstreams.model.stop();
    upstreams.stress.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
