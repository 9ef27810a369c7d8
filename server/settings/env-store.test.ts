// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { readStoreEnv } from './env-store.ts';

describe('readStoreEnv', () => {
  it('keeps the store in files under ./data, synced every 24 hours, when nothing is set', () => {
    const problems: string[] = [];
    expect(readStoreEnv({}, problems)).toEqual({ dataDir: './data', refreshHours: 24 });
    expect(problems).toEqual([]);
  });

  it('reads DATA_DIR, DATABASE_URL and KNOWLEDGE_REFRESH_HOURS', () => {
    const problems: string[] = [];
    const databaseUrl = 'postgresql://assistant:fake-pw@db.example:5432/assistant';
    expect(
      readStoreEnv(
        { DATA_DIR: '/var/lib/assistant', DATABASE_URL: databaseUrl, KNOWLEDGE_REFRESH_HOURS: '6' },
        problems,
      ),
    ).toEqual({ dataDir: '/var/lib/assistant', databaseUrl, refreshHours: 6 });
    expect(problems).toEqual([]);
  });

  it('refuses a DATABASE_URL that is no postgres:// URL without repeating it, and hours out of range', () => {
    const problems: string[] = [];
    readStoreEnv({ DATABASE_URL: 'mysql://root:fake-pw@db/x', KNOWLEDGE_REFRESH_HOURS: '0' }, problems);
    expect(problems).toEqual([
      'KNOWLEDGE_REFRESH_HOURS must be a whole number from 1 to 8760 (got "0")',
      'DATABASE_URL must be a postgres:// URL such as postgres://user:password@db.example:5432/assistant',
    ]);
    expect(problems.join('\n')).not.toContain('fake-pw');
  });
});
