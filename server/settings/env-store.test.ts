import { describe, expect, it } from 'vitest';
import { INDEX_BUDGET } from '../knowledge/knowledge.ts';
import { readStoreEnv } from './env-store.ts';

describe('readStoreEnv', () => {
  it('keeps the store in files under ./data, synced every 24 hours, its index within the default budget, when nothing is set', () => {
    const problems: string[] = [];
    expect(readStoreEnv({}, problems)).toEqual({ dataDir: './data', refreshHours: 24, indexBudget: INDEX_BUDGET });
    expect(problems).toEqual([]);
  });

  it('reads DATA_DIR, DATABASE_URL, KNOWLEDGE_REFRESH_HOURS and KNOWLEDGE_INDEX_TEXT', () => {
    const problems: string[] = [];
    const databaseUrl = 'postgresql://assistant:fake-pw@db.example:5432/assistant';
    const env = { DATA_DIR: '/var/lib/assistant', DATABASE_URL: databaseUrl, KNOWLEDGE_REFRESH_HOURS: '6' };
    expect(readStoreEnv({ ...env, KNOWLEDGE_INDEX_TEXT: '150' }, problems)).toEqual({
      dataDir: '/var/lib/assistant',
      databaseUrl,
      refreshHours: 6,
      // 150 million characters: two and a half times the default's, passages and terms with them.
      indexBudget: { maxTextChars: 150_000_000, maxPassages: 375_000, maxTerms: 625_000, maxPageTerms: 25_000 },
    });
    expect(problems).toEqual([]);
  });

  it('refuses a DATABASE_URL that is no postgres:// URL without repeating it, and numbers out of range', () => {
    const problems: string[] = [];
    const env = {
      DATABASE_URL: 'mysql://root:fake-pw@db/x',
      KNOWLEDGE_REFRESH_HOURS: '0',
      KNOWLEDGE_INDEX_TEXT: '2000',
    };
    readStoreEnv(env, problems);
    expect(problems).toEqual([
      'KNOWLEDGE_REFRESH_HOURS must be a whole number from 1 to 8760 (got "0")',
      'KNOWLEDGE_INDEX_TEXT must be a whole number from 1 to 1000 (got "2000")',
      'DATABASE_URL must be a postgres:// URL such as postgres://user:password@db.example:5432/assistant',
    ]);
    expect(problems.join('\n')).not.toContain('fake-pw');
  });
});
