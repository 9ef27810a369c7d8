import { describe, expect, it } from 'vitest';
import { hideCredentials, startedLine, stoppedLine } from './startup-line.ts';

describe('the start-up and last lines', () => {
  it('hides the credentials of a URL, and leaves one without them as it is', () => {
    expect(hideCredentials('redis://user:secret@redis.internal:6379/2')).toBe('redis://***@redis.internal:6379/2');
    expect(hideCredentials('rediss://:secret@redis.internal')).toBe('rediss://***@redis.internal');
    expect(hideCredentials('redis://redis.internal:6379')).toBe('redis://redis.internal:6379');
  });

  it('names the defaults when nothing is configured, and the address as before', () => {
    expect(
      startedLine({
        url: 'http://localhost:3000',
        allInterfaces: true,
        basePath: '',
        upstream: 'demo',
        knowledgeSources: 0,
        dataDir: './data',
      }),
    ).toBe(
      '[server] AI Assistant on http://localhost:3000 (all interfaces): demo; base path / (none); counts in memory (no REDIS_URL); no knowledge sources; no metrics (no METRICS_PORT)',
    );
    expect(
      startedLine({
        url: 'http://127.0.0.1:3000',
        allInterfaces: false,
        basePath: '/assistant',
        upstream: 'model m at https://provider.example/v1',
        redisUrl: 'redis://:pw@127.0.0.1:6379',
        knowledgeSources: 2,
        databaseUrl: 'postgres://assistant:secret@db.example:5432/assistant',
        dataDir: './data',
        metricsUrl: 'http://127.0.0.1:9464/metrics',
      }),
    ).toBe(
      '[server] AI Assistant on http://127.0.0.1:3000/assistant/: model m at https://provider.example/v1; base path /assistant; Redis redis://***@127.0.0.1:6379; knowledge (2 sources) kept in PostgreSQL postgres://***@db.example:5432/assistant; metrics on http://127.0.0.1:9464/metrics',
    );
    expect(stoppedLine('SIGTERM', 0)).toBe('[server] stopped after SIGTERM');
    expect(stoppedLine('SIGINT', 3)).toBe('[server] stopped after SIGINT (3 connections cut)');
  });
});
