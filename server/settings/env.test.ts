import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_PROXY_TIMEOUT_MS } from '../../contract/llm.ts';
import { EnvError, readServerEnv } from './env.ts';
import { describeUpstream } from './env-upstream.ts';
import type { Env } from './env-values.ts';

const KEY = 'placeholder-token-for-tests';

function problemsOf(env: Env): string[] {
  try {
    readServerEnv(env);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  throw new Error('expected readServerEnv to refuse');
}

describe('readServerEnv', () => {
  it('has documented defaults for everything but the token', () => {
    const config = readServerEnv({ LLM_API_KEY: KEY });

    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.proxy).toEqual({
      basePath: '',
      upstream: { kind: 'provider', baseURL: DEFAULT_BASE_URL, apiKey: KEY, model: DEFAULT_MODEL },
      timeoutMs: DEFAULT_PROXY_TIMEOUT_MS,
      rateLimitPerMinute: 20,
      trustProxyHops: 0,
      dailyTokenLimit: 0,
      security: { frameAncestors: ["'self'"], connectSrc: [] },
    });
    expect(config.connections).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 15_000, maxConnections: 1000 });
    expect(config.redisUrl).toBeUndefined();
    expect(config.metrics).toBeUndefined();
    expect(config.notices).toEqual([]);
  });

  it('reads every variable', () => {
    const config = readServerEnv({
      PORT: '8080',
      HOST: '127.0.0.1',
      LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      LLM_API_KEY: ` ${KEY} `,
      LLM_MODEL: 'llama3.1:8b',
      LLM_TIMEOUT_MS: '5000',
      RATE_LIMIT_PER_MINUTE: '0',
      TRUST_PROXY: '2',
      FRAME_ANCESTORS: 'self https://www.example.com',
      CSP_CONNECT_SRC: 'https://router.huggingface.co',
      LLM_DAILY_TOKEN_LIMIT: '200000',
      REDIS_URL: 'redis://127.0.0.1:6379/2',
      METRICS_PORT: '9464',
      METRICS_HOST: '::1',
      HEADERS_TIMEOUT_MS: '5000',
      REQUEST_TIMEOUT_MS: '12000',
      MAX_CONNECTIONS: '0',
      BASE_PATH: '/help/assistant',
    });

    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      connections: { headersTimeoutMs: 5000, requestTimeoutMs: 12_000, maxConnections: 0 },
      redisUrl: 'redis://127.0.0.1:6379/2',
      metrics: { port: 9464, host: '::1' },
    });
    expect(config.proxy).toEqual({
      basePath: '/help/assistant',
      upstream: { kind: 'provider', baseURL: 'http://127.0.0.1:11434/v1', apiKey: KEY, model: 'llama3.1:8b' },
      timeoutMs: 5000,
      rateLimitPerMinute: 0,
      trustProxyHops: 2,
      dailyTokenLimit: 200000,
      security: {
        frameAncestors: ["'self'", 'https://www.example.com'],
        connectSrc: ['https://router.huggingface.co'],
      },
    });
    expect(config.notices.join(' ')).toContain('not rate limited');
  });

  it('takes how long the handoff form must be open: 3 seconds unset, 0 to 600, anything else named', () => {
    expect(readServerEnv({ LLM_API_KEY: KEY }).handoff).toEqual({ dailyLimit: 50, minSeconds: 3 });
    expect(readServerEnv({ LLM_API_KEY: KEY, HANDOFF_MIN_SECONDS: '0' }).handoff.minSeconds).toBe(0);
    expect(readServerEnv({ LLM_API_KEY: KEY, HANDOFF_MIN_SECONDS: '600' }).handoff.minSeconds).toBe(600);
    for (const value of ['601', '-1', '2.5', 'soon']) {
      expect(problemsOf({ LLM_API_KEY: KEY, HANDOFF_MIN_SECONDS: value })).toEqual([
        expect.stringMatching(/^HANDOFF_MIN_SECONDS /),
      ]);
    }
  });

  it('sends traces only to an http(s) collector, never repeating a refused address (it may hold a password)', () => {
    expect(readServerEnv({ LLM_API_KEY: KEY }).traces).toBeUndefined();
    expect(readServerEnv({ LLM_API_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: ' http://127.0.0.1:4318 ' }).traces).toEqual({
      endpoint: 'http://127.0.0.1:4318',
      serviceName: 'ai-assistant',
    });
    expect(
      readServerEnv({
        LLM_API_KEY: KEY,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example',
        OTEL_SERVICE_NAME: 'shop',
      }).traces?.serviceName,
    ).toBe('shop');
    for (const value of ['ftp://user:s3cret@otel.example', 'otel.example:4318', 'http://']) {
      const problems = problemsOf({ LLM_API_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: value });
      expect(problems).toEqual([expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT must be an http/)]);
      expect(problems.join(' ')).not.toContain('s3cret');
    }
  });

  it('refuses to start without LLM_API_KEY unless demo mode is asked for', () => {
    expect(problemsOf({})).toEqual([expect.stringContaining('LLM_API_KEY is not set')]);
    expect(readServerEnv({ LLM_DEMO: '1' }).proxy.upstream).toEqual({ kind: 'demo' });
    expect(readServerEnv({ LLM_DEMO: 'true', LLM_API_KEY: KEY }).notices.join(' ')).toContain('LLM_API_KEY is ignored');
  });

  it('falls back to the demo responder, saying so, only where asked (the dev and preview servers)', () => {
    const config = readServerEnv({}, { demoFallback: true });

    expect(config.proxy.upstream).toEqual({ kind: 'demo' });
    expect(config.notices.join(' ')).toMatch(/No LLM_API_KEY is set.*demo responder/);
    expect(readServerEnv({ LLM_API_KEY: KEY }, { demoFallback: true }).proxy.upstream.kind).toBe('provider');
  });

  it('reports every invalid variable at once', () => {
    const problems = problemsOf({
      LLM_API_KEY: KEY,
      PORT: 'eighty',
      LLM_TIMEOUT_MS: '-1',
      RATE_LIMIT_PER_MINUTE: '1.5',
      TRUST_PROXY: 'maybe',
      LLM_DEMO: 'sure',
      LLM_BASE_URL: 'ftp://example.com',
      FRAME_ANCESTORS: "https://ok.example; script-src 'unsafe-eval'",
      LLM_DAILY_TOKEN_LIMIT: 'lots',
      REDIS_URL: 'http://127.0.0.1:6379',
      METRICS_PORT: '70000',
      HOST: '0.0.0.0:3000',
      REQUEST_TIMEOUT_MS: '0',
      MAX_CONNECTIONS: '1e3',
    });

    expect(problems.map((problem) => problem.split(/[ :]/)[0]).sort()).toEqual(
      [
        'FRAME_ANCESTORS',
        'LLM_DAILY_TOKEN_LIMIT',
        'REDIS_URL',
        'METRICS_PORT',
        'LLM_BASE_URL',
        'LLM_DEMO',
        'LLM_TIMEOUT_MS',
        'PORT',
        'RATE_LIMIT_PER_MINUTE',
        'TRUST_PROXY',
        'HOST',
        'REQUEST_TIMEOUT_MS',
        'MAX_CONNECTIONS',
      ].sort(),
    );
  });

  it('takes TRUST_PROXY as addresses and CIDR ranges too', () => {
    const config = readServerEnv({
      LLM_API_KEY: KEY,
      TRUST_PROXY: '10.0.0.0/8, 192.0.2.7 2001:db8::/32 0.0.0.0/1 198.51.100.9/32 2001:db8::1/128',
    });

    expect(config.proxy.trustProxyHops).toBe(0);
    expect(config.proxy.trustedProxies).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      '2001:db8::/32',
      '0.0.0.0/1',
      '198.51.100.9/32',
      '2001:db8::1/128',
    ]);
    expect(readServerEnv({ LLM_API_KEY: KEY, TRUST_PROXY: 'true' }).proxy.trustProxyHops).toBe(1);
    expect(readServerEnv({ LLM_API_KEY: KEY, TRUST_PROXY: '10' }).proxy.trustProxyHops).toBe(10);
  });

  // Each of these once parsed, several as "trust everyone" (an empty prefix was /0).
  it.each([
    ['10.0.0.0/', '10.0.0.0/'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::/0', '::/0'],
    ['10.0.0.0/1e1', '10.0.0.0/1e1'],
    ['10.0.0.0/0x8', '10.0.0.0/0x8'],
    ['10.0.0.0/8.0', '10.0.0.0/8.0'],
    ['10.0.0.0/-8', '10.0.0.0/-8'],
    ['10.0.0.0/33', '10.0.0.0/33'],
    ['2001:db8::/129', '2001:db8::/129'],
    ['10.0.0.0/0008', '10.0.0.0/0008'],
    ['10.0.0.0/8/8', '10.0.0.0/8/8'],
    ['192.0.2.7, 10.0.0.0/ 8', '10.0.0.0/'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['proxy.internal', 'proxy.internal'],
    ['1.5', '1.5'],
    ['0x1', '0x1'],
    ['11', '11'],
  ])('refuses TRUST_PROXY=%s, naming the setting and the bad value', (value, bad) => {
    const problems = problemsOf({ LLM_API_KEY: KEY, TRUST_PROXY: value });

    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^TRUST_PROXY /);
    expect(problems[0]).toContain(`"${bad}`);
  });

  it.each([
    ['PORT', '0x50'],
    ['PORT', '8e1'],
    ['LLM_TIMEOUT_MS', '5000.0'],
    ['LLM_DAILY_TOKEN_LIMIT', '1_000'],
    ['RATE_LIMIT_PER_MINUTE', ' -1'],
    ['FRAME_ANCESTORS', 'https://a.example,https://b.example'],
    ['FRAME_ANCESTORS', 'https://a.example:99999'],
    ['CSP_CONNECT_SRC', 'https://llm.example/v1;'],
    ['CSP_CONNECT_SRC', "https://llm.example 'none'"],
    ['HOST', 'http://0.0.0.0'],
    ['HEADERS_TIMEOUT_MS', '999'],
    ['REQUEST_TIMEOUT_MS', '15s'],
    ['MAX_CONNECTIONS', '-1'],
  ])('refuses %s=%s, naming it', (name, value) => {
    const problems = problemsOf({ LLM_API_KEY: KEY, [name]: value });

    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${name}\\b`))]);
  });

  it('refuses a headers timeout longer than the whole request may take', () => {
    expect(problemsOf({ LLM_API_KEY: KEY, HEADERS_TIMEOUT_MS: '20000' })).toEqual([
      'HEADERS_TIMEOUT_MS (20000) must not be longer than REQUEST_TIMEOUT_MS (15000)',
    ]);
  });

  it('warns about a plain-http provider that is not on this machine, and metrics open beyond it', () => {
    const remote = readServerEnv({ LLM_API_KEY: KEY, LLM_BASE_URL: 'http://llm.internal:8000/v1' });
    const local = readServerEnv({ LLM_API_KEY: KEY, LLM_BASE_URL: 'http://127.0.0.1:11434/v1' });
    const named = readServerEnv({ LLM_API_KEY: KEY, LLM_BASE_URL: 'http://localhost:8080/v1' });
    const metrics = readServerEnv({ LLM_API_KEY: KEY, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });

    expect(remote.notices.join(' ')).toMatch(/plain http to llm\.internal:8000/);
    expect(local.notices).toEqual([]);
    expect(named.notices).toEqual([]);
    expect(metrics.notices.join(' ')).toContain('METRICS_HOST=0.0.0.0');
  });

  it('serves a direct-mode build without a token, allowing its provider and saying the token is in the page', () => {
    const config = readServerEnv({}, { directBuild: { providerOrigin: 'https://router.huggingface.co' } });

    expect(config.proxy.upstream).toEqual({ kind: 'none' });
    expect(config.proxy.security.connectSrc).toEqual(['https://router.huggingface.co']);
    expect(config.notices.join(' ')).toMatch(/direct-mode build.*token.*every visitor can read it/);
    expect(config.notices.join(' ')).not.toContain('plain http');
    const plain = readServerEnv({}, { directBuild: { providerOrigin: 'http://llm.internal:8000' } });
    expect(plain.notices.join(' ')).toContain('VITE_LLM_BASE_URL is plain http to llm.internal:8000');
  });

  it.each([
    '*',
    'https:',
    'http:',
    'data:',
    'blob:',
    'https://*',
    'https://*:443',
    '*.com',
    "'self' https://shop.example https://*",
  ])('says that FRAME_ANCESTORS=%s lets any site show the chat and spend the quota', (value) => {
    const notices = readServerEnv({ LLM_API_KEY: KEY, FRAME_ANCESTORS: value }).notices;

    expect(notices).toEqual([expect.stringMatching(/^FRAME_ANCESTORS=.*any site can then show the chat.*quota/)]);
  });

  it.each(["'self'", 'none', 'https://shop.example https://*.shop.example:8443', 'http://localhost:5173'])(
    'says nothing of an ordinary FRAME_ANCESTORS=%s',
    (value) => {
      expect(readServerEnv({ LLM_API_KEY: KEY, FRAME_ANCESTORS: value }).notices).toEqual([]);
    },
  );

  it('never puts the token in what it prints', () => {
    const config = readServerEnv({ LLM_API_KEY: KEY });
    const printed = [describeUpstream(config.proxy.upstream), ...config.notices].join('\n');

    expect(printed).toContain(DEFAULT_BASE_URL);
    expect(printed).not.toContain(KEY);
    expect(problemsOf({ LLM_API_KEY: KEY, LLM_BASE_URL: 'https://user:secret@llm.example/v1' })).toEqual([
      expect.stringContaining('must not contain credentials'),
    ]);
    const withQuery = readServerEnv({ LLM_API_KEY: KEY, LLM_BASE_URL: 'https://llm.example/v1/?account=123' });
    expect(describeUpstream(withQuery.proxy.upstream)).toBe(`proxy to https://llm.example/v1 (model ${DEFAULT_MODEL})`);
  });
});
