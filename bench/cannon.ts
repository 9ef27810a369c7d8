// One autocannon run for `npm run load` in its own process (options as JSON in, a `CannonSummary` as JSON out).
// Responses are binned by when their request was sent, so that the opening burst and a cold server's first seconds
// (settling) are timed apart from the steady state.
import autocannon from 'autocannon';
import { quantile } from './table.ts';

export interface CannonOptions {
  url: string;
  body: string;
  /** Bodies each connection sends in turn, over and over (then `body` is not sent). */
  bodies?: string[];
  /** Requests per second across all connections; unset, each connection sends its next request as soon as it can. */
  overallRate?: number;
  connections: number;
  /** Seconds to run, of which the first `settleSeconds` are timed apart; or `amount` requests in all. */
  seconds?: number;
  settleSeconds?: number;
  amount?: number;
}

const latencies = (times: number[]) => ({ p50: quantile(times, 0.5), p99: quantile(times, 0.99) });

export interface CannonSummary {
  /** Requests sent after the settling time: their latencies (ms), and requests per second over that time. */
  steady: ReturnType<typeof latencies> & { perSecond: number };
  settling: ReturnType<typeof latencies>;
  /** Over the whole run: the 429s, and errors of any other kind (connection errors, timeouts, statuses but 2xx). */
  count429: number;
  unexpected: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as CannonOptions;
const settleMs = (options.settleSeconds ?? 0) * 1000;
const steady: number[] = [];
const settling: number[] = [];
let startedAt = 0;
let endedAt = 0;

const result = await new Promise<autocannon.Result>((resolve, reject) => {
  const instance = autocannon(
    {
      url: options.url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: options.body,
      ...(options.overallRate ? { overallRate: options.overallRate } : {}),
      ...(options.bodies ? { requests: options.bodies.map((body) => ({ body })) } : {}),
      connections: options.connections,
      ...(options.amount ? { amount: options.amount } : { duration: options.seconds }),
      timeout: 30,
    },
    (error, finished) => {
      endedAt = performance.now();
      if (error) reject(error);
      else resolve(finished);
    },
  );
  // Stopped early (see cannon-run.ts, `until`): it answers with what it has.
  process.once('SIGINT', () => instance.stop());
  instance.on('start', () => {
    startedAt = performance.now();
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    (performance.now() - responseTime - startedAt < settleMs ? settling : steady).push(responseTime);
  });
});

const codes = result.statusCodeStats ?? {};
const summary: CannonSummary = {
  steady: { ...latencies(steady), perSecond: steady.length / ((endedAt - startedAt - settleMs) / 1000) },
  settling: latencies(settling),
  count429: codes['429']?.count ?? 0,
  unexpected:
    result.errors +
    result.timeouts +
    Object.entries(codes)
      .filter(([code]) => !code.startsWith('2') && code !== '429')
      .reduce((sum, [, stat]) => sum + (stat.count ?? 0), 0),
};
console.log(JSON.stringify(summary));
